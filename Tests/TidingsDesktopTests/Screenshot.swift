import Foundation
import Testing
import TestSupport

/// A PNG of the top right of Xvfb's screen (where dunst shows its
/// notifications), made from the XWD file Xvfb keeps it in (`-fbdir`), with
/// Python's zlib: the machine has no ImageMagick and no xwd.
enum Screenshot {
    /// The width and height of the corner kept.
    static let size = (width: 420, height: 150)

    /// Writes the screen in `framebuffer` (Xvfb_screen0) to `path` as a PNG:
    /// the top right corner of `size`, or `region` (x, y, width, height) when given.
    static func write(framebuffer: String, to path: String, region: [Int]? = nil) throws {
        let python = try #require(ProcessRunner.which("python3"), "python3 makes the screenshot")
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            h = struct.unpack('>25I', data[:100])
            size, width, height, order, bpp, line, colours = h[0], h[4], h[5], h[7], h[11], h[12], h[19]
            cw, ch = min(int(sys.argv[3]), width), min(int(sys.argv[4]), height)
            x0, y0, start = width - cw, 0, size + colours * 12
            if len(sys.argv) > 5:
                x0, y0 = min(int(sys.argv[5]), width - 1), min(int(sys.argv[6]), height - 1)
                cw, ch = min(cw, width - x0), min(ch, height - y0)
            raw = bytearray()
            for y in range(y0, y0 + ch):
                row = data[start + y * line:start + (y + 1) * line]
                raw.append(0)
                for x in range(x0, x0 + cw):
                    p = row[x * 4:x * 4 + 4]
                    raw += bytes((p[2], p[1], p[0])) if order == 0 else bytes((p[1], p[2], p[3]))
            def chunk(kind, body):
                return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', cw, ch, 8, 2, 0, 0, 0))
            png += chunk(b'IDAT', zlib.compress(bytes(raw), 9)) + chunk(b'IEND', b'')
            open(sys.argv[2], 'wb').write(png)
            """
        let area = region.map { ["\($0[2])", "\($0[3])", "\($0[0])", "\($0[1])"] } ?? ["\(size.width)", "\(size.height)"]
        let result = try ProcessRunner.run(python, ["-c", script, framebuffer, path] + area)
        #expect(result.status == 0, "the screenshot failed: \(result.standardError)")
    }
}
