import Foundation
import TestSupport
import Testing

/// `tidings preview`: the page drawn from the EventInvite sample (and from a
/// bundle whose interface has every element kind), its escaping, and the
/// screenshot a real headless Chromium takes of it.
@Suite struct PreviewCommandTests {
    let tidings = Tidings()
    let extensions = TemporaryDirectory("cli-extensions")
    let work = TemporaryDirectory("cli-preview")
    let invite = Locations.repositoryFile("Plugins/EventInvite/Payloads/invite.json")
    let categories = Locations.repositoryFile("Plugins/EventInvite/Payloads/categories.json")

    init() throws {
        try tidings.installSamples(into: extensions.path)
    }

    /// The page `tidings preview` writes for `arguments` after the payload, with the sample's categories.
    private func page(_ payload: String, _ arguments: [String] = [], extensions: String? = nil) throws -> String {
        let output = work.file("page-\(UUID().uuidString).html")
        let result = try tidings.run(["preview", payload, "--categories", categories, "--extensions", extensions ?? self.extensions.path,
                                      "--output", output] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    @Test(arguments: IsolationMode.allCases)
    func inviteDrawsBannerExpandedViewAndActions(_ mode: IsolationMode) throws {
        let html = try page(invite, ["--isolation", mode.option, "--app-name", "Events"])
        // The banner's default content and thumbnail, the expanded view's elements, the actions.
        #expect(html.contains("<div class=\"title\">Team offsite</div><div class=\"body clamped\""))
        #expect(html.contains("class=\"thumbnail\" data-attachment=\"event-image\" style=\"background-image:url(data:image/png;base64,"))
        #expect(html.contains("<span class=\"app\">Events</span>"))
        #expect(html.contains("Expanded · 360 × 320 (270 while loading)"))
        #expect(html.contains("<div class=\"content\" style=\"width:360px;height:320px\">"))
        #expect(html.contains("<div class=\"stack vertical\" data-kind=\"stack\" data-id=\"invitation\" style=\"gap:8px\">"))
        #expect(html.contains("<img class=\"image\" alt=\"\" data-kind=\"image\" data-id=\"eventImage\" data-attachment=\"event-image\" src=\"data:image/png;base64,iVBORw0KGgo"))
        #expect(html.contains("<div class=\"label headline\" data-kind=\"label\" data-id=\"eventTitle\">Team offsite</div>"))
        #expect(html.contains("<div class=\"label subheadline\" data-kind=\"label\" data-id=\"eventLocation\">Lighthouse, Pier 3</div>"))
        #expect(html.contains("<div class=\"label headline\" data-kind=\"label\" data-id=\"eventResponse\" hidden></div>"))
        // Default content hidden: the expanded view shows no title and body of its own.
        #expect(!html.contains("class=\"text default-content\""))
        #expect(html.contains("<li class=\"action destructive\" data-action=\"decline\"><span class=\"action-title\">Decline</span></li>"))
        #expect(html.contains("<div class=\"field\"><span class=\"placeholder\">Add a comment</span><span class=\"send\">Send</span></div>"))
        // Both appearances, and nothing loaded from anywhere.
        #expect(html.contains("data-appearance=\"light\"") && html.contains("data-appearance=\"dark\""))
        #expect(html.contains("content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline';\""))
        #expect(!html.contains("file://") && !html.contains("http:") && !html.contains("https:") && !html.contains("<script"))
    }

    @Test func responseAddsTheViewAsItLeftIt() throws {
        let html = try page(invite, ["--respond", "accept", "--appearance", "dark"])
        #expect(html.contains("After accept: the extension answered dismiss; dismissed"))
        // The panel after the dismissal draws the card as gone: outlined, a mark in place of the actions; the first is as it was.
        let after = try #require(html.components(separatedBy: "After accept:").last)
        #expect(after.contains("<div class=\"dismissed-card\">\n<article class=\"platter expanded dismissed\">"))
        #expect(after.contains("<div class=\"dismissed-mark\">Dismissed: no longer shown</div>"))
        #expect(!after.contains("<ul class=\"actions\""))
        #expect(html.contains(".dismissed-card .platter{outline:2px dashed var(--destructive)"))
        #expect(html.components(separatedBy: "<div class=\"dismissed-mark\">").count == 2)
        #expect(html.contains("data-id=\"eventResponse\" style=\"color:#34C759\">Going!</div>"))
        #expect(html.contains("data-appearance=\"dark\"") && !html.contains("data-appearance=\"light\""))
        // The image was read before the dismissal took the attachment out of the store.
        #expect(html.components(separatedBy: "data-id=\"eventImage\" data-attachment=\"event-image\" src=\"data:image/png").count == 3)
    }

    @Test func hostileTextIsEscaped() throws {
        let hostile = "<script>alert(1)</script>\"' onload=x &amp; <img src=http://e/x>\u{1}"
        let payload = work.file("hostile.json")
        let content: [String: Any] = [
            "title": hostile, "subtitle": hostile, "body": hostile, "categoryIdentifier": "event-invite",
            "userInfo": ["title": hostile, "location": hostile],
        ]
        try JSONSerialization.data(withJSONObject: ["identifier": "x\"><b>", "content": content]).write(to: URL(fileURLWithPath: payload))
        let html = try page(payload, ["--app-name", hostile, "--respond", "comment", "--text", hostile])
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39; onload=x &amp;amp; &lt;img src=http://e/x&gt;"
        #expect(html.contains("<div class=\"title\">\(escaped)</div>"))
        #expect(html.contains("data-id=\"eventTitle\">\(escaped)</div>"))
        #expect(html.contains("<span class=\"app\">\(escaped)</span>"))
        #expect(html.contains("After comment with &quot;\(escaped)&quot;"))
        #expect(!html.contains("<script") && !html.contains("<img src") && !html.contains("\u{1}"))
    }

    @Test func everyElementKindAndAttributeIsDrawn() throws {
        // EventInvite's library with an interface of every kind, style, colour form and flag.
        let interface = work.file("MainInterface.json")
        let styles = ["title", "headline", "subheadline", "body", "footnote", "caption"]
        let labels = styles.map { "{\"type\": \"label\", \"id\": \"style-\($0)\", \"text\": \"\($0)\", \"style\": \"\($0)\"}" }
        try """
            {"version": 1, "root": {"type": "stack", "id": "invitation", "spacing": 4, "children": [
              {"type": "label", "id": "eventTitle"}, {"type": "label", "id": "eventDate"},
              {"type": "label", "id": "eventLocation"}, {"type": "label", "id": "eventMessage"},
              {"type": "label", "id": "eventResponse", "hidden": true},
              {"type": "image", "id": "eventImage"}, {"type": "image", "id": "unbound"},
              {"type": "stack", "id": "row", "axis": "horizontal", "spacing": 12.5, "children": [
                {"type": "label", "id": "tinted", "text": "tinted", "textColor": "#FF000080"},
                {"type": "label", "text": "opaque", "textColor": "#0000ff"}]},
              \(labels.joined(separator: ", "))]}}
            """.write(toFile: interface, atomically: true, encoding: .utf8)
        let bundles = TemporaryDirectory("cli-preview-bundles")
        let installed = try tidings.run(["install", Locations.repositoryFile("Manifests/EventInvite.plist"),
                                         Locations.product("libEventInvite.so"), interface, "--into", bundles.path])
        try #require(installed.status == 0, "\(installed.standardError)")
        let html = try page(invite, extensions: bundles.path)
        #expect(html.contains("<div class=\"stack vertical\" data-kind=\"stack\" data-id=\"invitation\" style=\"gap:4px\">"))
        #expect(html.contains("<div class=\"stack horizontal\" data-kind=\"stack\" data-id=\"row\" style=\"gap:12.5px\">"))
        #expect(html.contains("<div class=\"label body\" data-kind=\"label\" data-id=\"tinted\" style=\"color:rgba(255,0,0,0.5)\">tinted</div>"))
        #expect(html.contains("<div class=\"label body\" data-kind=\"label\" style=\"color:#0000FF\">opaque</div>"))
        for style in styles {
            #expect(html.contains("<div class=\"label \(style)\" data-kind=\"label\" data-id=\"style-\(style)\">\(style)</div>"))
        }
        #expect(html.contains("<div class=\"image empty\" data-kind=\"image\" data-id=\"unbound\"></div>"))
        #expect(html.contains("data-id=\"eventImage\" data-attachment=\"event-image\" src=\"data:image/png;base64,"))
        #expect(html.contains("data-id=\"eventResponse\" hidden></div>"))
    }

    @Test func withoutAnExtensionTheDefaultContentAndAttachmentShow() throws {
        let none = TemporaryDirectory("cli-preview-empty")
        let html = try page(invite, extensions: none.path)
        #expect(html.contains("<img class=\"attachment\" alt=\"\" data-attachment=\"event-image\" src=\"data:image/png;base64,"))
        #expect(html.contains("<div class=\"text default-content\"><div class=\"title\">Team offsite</div>"))
        #expect(!html.contains("class=\"content\""))
    }

    @Test func hiddenPreviewsShowThePlaceholderAndNoView() throws {
        let html = try page(invite, ["--previews", "never"])
        #expect(html.contains("<div class=\"title\">Team offsite</div><div class=\"body clamped\" style=\"-webkit-line-clamp:4\">1 invitations</div>"))
        #expect(!html.contains("class=\"content\"") && !html.contains("data:image"))
    }

    @Test func missingBrowserIsAClearFailure() throws {
        let result = try tidings.run(["preview", invite, "--categories", categories, "--extensions", extensions.path,
                                      "--png", work.file("x.png")], environment: ["PATH": work.path])
        #expect(result.status == 72)
        #expect(result.standardError.contains("[preview.browser-missing]"))
        let given = try tidings.run(["preview", invite, "--png", work.file("x.png"), "--browser", work.file("nothing")])
        #expect(given.status == 72)
        #expect(given.standardError.contains("is not an executable file"))
        #expect(FileManager.default.fileExists(atPath: work.file("x.png")) == false)
    }

    @Test func failingBrowserIsReported() throws {
        let browser = work.file("false-browser")
        try "#!/bin/sh\necho 'cannot open display' >&2\nexit 3\n".write(toFile: browser, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
        let result = try tidings.run(["preview", invite, "--categories", categories, "--extensions", extensions.path,
                                      "--png", work.file("x.png"), "--browser", browser])
        #expect(result.status == 72)
        #expect(result.standardError.contains("exited with status 3: cannot open display"))
    }

    /// The real thing: Chromium's screenshot of the sample before and after
    /// accept; only after it do the response label's green pixels show.
    @Test(.enabled(if: ProcessRunner.which("chromium") != nil, "needs chromium (apt-get install chromium; .ci/run installs it)"))
    func screenshotShowsTheResponseLabelAfterAccept() throws {
        let before = work.file("before.png"), after = work.file("after.png")
        for (png, extra) in [(before, [String]()), (after, ["--respond", "accept"])] {
            let result = try tidings.run(["preview", invite, "--categories", categories, "--extensions", extensions.path,
                                          "--appearance", "light", "--png", png, "--json"] + extra)
            try #require(result.status == 0, "\(result.standardError)")
            let output = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(output[path: "preview", "width"] as? Int == 392)
        }
        let green = (0x34, 0xC7, 0x59)
        let (width, height, countBefore) = try PNGPixels.count(of: green, in: before)
        #expect(width == 392 && height > 600)
        #expect(countBefore == 0)
        let countAfter = try PNGPixels.count(of: green, in: after).count
        // "Going!" in 17-point semibold: well over a hundred pixels of the colour.
        #expect(countAfter > 100, "\(countAfter) green pixels")
    }
}

/// Counts pixels of a colour in a PNG, decoded by Python's zlib (Foundation
/// on Linux decodes no images).
enum PNGPixels {
    private static let script = """
        import sys, struct, zlib
        data = open(sys.argv[1], 'rb').read()
        target = [int(sys.argv[2], 16), int(sys.argv[3], 16), int(sys.argv[4], 16)]
        assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
        pos, idat = 8, b''
        while pos < len(data):
            length, kind = struct.unpack('>I4s', data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b'IHDR':
                width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
            elif kind == b'IDAT':
                idat += body
            pos += 12 + length
        assert depth == 8 and colour in (2, 6) and interlace == 0
        channels = 3 if colour == 2 else 4
        raw = zlib.decompress(idat)
        stride = width * channels
        previous = bytearray(stride)
        count = 0
        for row in range(height):
            kind = raw[row * (stride + 1)]
            line = bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up = previous[i]
                corner = previous[i - channels] if i >= channels else 0
                if kind == 1: line[i] = (line[i] + left) & 255
                elif kind == 2: line[i] = (line[i] + up) & 255
                elif kind == 3: line[i] = (line[i] + (left + up) // 2) & 255
                elif kind == 4:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
            for x in range(0, stride, channels):
                if all(abs(line[x + c] - target[c]) <= 6 for c in range(3)):
                    count += 1
            previous = line
        print(width, height, count)
        """

    /// The PNG's size and how many of its pixels are `colour`, within 6 per channel.
    static func count(of colour: (Int, Int, Int), in path: String) throws -> (width: Int, height: Int, count: Int) {
        let hex = [colour.0, colour.1, colour.2].map { String($0, radix: 16) }
        let result = try ProcessRunner.run(try #require(ProcessRunner.which("python3")), ["-c", script, path] + hex)
        let numbers = result.standardOutput.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(result.status == 0 && numbers.count == 3, "\(result.standardError)")
        return (numbers[0], numbers[1], numbers[2])
    }
}
