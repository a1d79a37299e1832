import Glibc
import TidingsBase
import TidingsRuntime

/// A headless Chromium that lays out a page and takes its screenshot: found
/// on PATH as `chromium`, `chromium-browser` or `google-chrome` (or given),
/// run with a private temporary profile, killed with everything it started
/// at its deadline.
struct HeadlessBrowser {
    /// The browser's executable.
    let path: String
    /// How long one run of the browser may take, in seconds.
    var deadline = defaultDeadline

    /// The deadline of a run unless told otherwise, in seconds.
    static let defaultDeadline = 120.0

    /// The names looked for on PATH, in order.
    static let names = ["chromium", "chromium-browser", "google-chrome"]

    /// The browser `given` names (a path), else the first of `names` on `PATH`.
    static func find(_ given: String?, environment: [String: String]) throws(Diagnostic) -> HeadlessBrowser {
        if let given {
            guard access(given, X_OK) == 0, !FileSystem.isDirectory(given) else {
                throw .error(.browserMissing, "--browser \(given) is not an executable file.")
            }
            return HeadlessBrowser(path: given)
        }
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in names {
            for directory in directories where !directory.isEmpty {
                let candidate = Path.join(directory, name)
                if access(candidate, X_OK) == 0, !FileSystem.isDirectory(candidate) { return HeadlessBrowser(path: candidate) }
            }
        }
        throw .error(.browserMissing, "No headless browser for the PNG: none of \(names.joined(separator: ", ")) is on PATH "
            + "(install Chromium, e.g. apt-get install chromium, or name one with --browser PATH).")
    }

    /// The tallest screenshot taken, in CSS pixels; a longer page is cut there.
    static let maximumHeight = 16_384

    /// Lays out `page`, an HTML page whose script writes its height into
    /// the body's `data-height` attribute (see `PreviewPage.html(measuring:)`),
    /// `width` CSS pixels wide, and writes a screenshot of all of it (up to
    /// `maximumHeight`) to `output`, a PNG. Returns the screenshot's height.
    func screenshot(of page: String, width: Int, to output: String) throws(Diagnostic) -> Int {
        let scratch = try FileSystem.makeTemporaryDirectory(prefix: "tidings-preview")
        defer { try? FileSystem.removeTree(scratch) }
        let file = Path.join(scratch, "page.html")
        try FileSystem.writeFileAtomically(file, Array(page.utf8))
        let height = min(try self.height(of: file, width: width), Self.maximumHeight)
        let target = FileSystem.absolutePath(output)
        _ = try run(file, width: width, height: height, extra: ["--screenshot=\(target)"])
        guard FileSystem.status(of: target) != nil else {
            throw .error(.browserFailed, "\(path) wrote no screenshot to \(output).")
        }
        return height
    }

    /// The height in CSS pixels of the page in `file` laid out `width`
    /// pixels wide: the number its script wrote into the body's `data-height` attribute.
    private func height(of file: String, width: Int) throws(Diagnostic) -> Int {
        let dom = try run(file, width: width, height: 600, extra: ["--dump-dom"])
        guard let found = dom.firstRange(of: "data-height=\"") else {
            throw .error(.browserFailed, "\(path) did not lay out the page (no height in its document).")
        }
        let digits = dom[found.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard let height = Int(digits.prefix(9)), height > 0 else {
            throw .error(.browserFailed, "\(path) reported no height for the page.")
        }
        return height
    }

    /// Runs the browser on `page` with `extra` arguments; its standard output.
    private func run(_ page: String, width: Int, height: Int, extra: [String]) throws(Diagnostic) -> String {
        let scratch = try FileSystem.makeTemporaryDirectory(prefix: "tidings-preview")
        defer { try? FileSystem.removeTree(scratch) }
        let outputFile = Path.join(scratch, "output"), errorFile = Path.join(scratch, "errors")
        var arguments = [path, "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                         "--no-default-browser-check", "--disable-extensions", "--force-device-scale-factor=1",
                         "--force-color-profile=srgb", "--user-data-dir=\(Path.join(scratch, "profile"))",
                         "--window-size=\(width),\(height)"]
        // Chromium's sandbox refuses to start as root.
        if geteuid() == 0 { arguments.append("--no-sandbox") }
        arguments += extra + [FileURL.url(of: FileSystem.absolutePath(page))]
        let status = try spawnAndWait(arguments, output: outputFile, errors: errorFile)
        let output = (try? FileSystem.readFile(outputFile, limit: 64 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard status == 0 else {
            let errors = (try? FileSystem.readFile(errorFile, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let last = errors.split(separator: "\n").suffix(3).joined(separator: " | ")
            let how = status < 0 ? "did not finish within \(NumberText.short(deadline)) s and was killed" : "exited with status \(status)"
            throw .error(.browserFailed, "\(path) \(how)" + (last.isEmpty ? "." : ": \(last)"))
        }
        return output
    }

    /// Starts `arguments` in a process group of its own, its output and
    /// errors to files, and waits for it: its exit status (128 + the signal
    /// when a signal ended it), or -1 when it was killed at the deadline.
    private func spawnAndWait(_ arguments: [String], output: String, errors: String) throws(Diagnostic) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw .error(.browserFailed, "Cannot start \(path): \(String(cString: strerror(spawned))).")
        }
        let end = MonotonicClock.deadline(after: deadline)
        var status: Int32 = 0
        while true {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0 && errno != EINTR { return -1 }
            if MonotonicClock.now() > end {
                kill(-pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return -1
            }
            usleep(10_000)
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

extension Diagnostic.Code {
    /// No headless browser was found for a screenshot.
    static let browserMissing = Self("preview.browser-missing")
    /// The headless browser failed, or took longer than its deadline.
    static let browserFailed = Self("preview.browser-failed")
}
