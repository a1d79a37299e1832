import Glibc

/// An open file descriptor and its only owner: the descriptor is closed when
/// the owner goes away, unless it was handed on with `take()`.
package struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number, valid while this owner lives.
    package let rawValue: Int32

    /// Owns `rawValue`, which must be an open descriptor no one else closes.
    package init(adopting rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Owns the descriptor a shim call returned (`tidings_eventfd()`, …), or
    /// throws the error its negative result names: the shims return
    /// `-errno` for a failure, never a descriptor.
    package init(adoptingResult result: Int32) throws(SystemError) {
        guard result >= 0 else { throw SystemError(code: -result) }
        rawValue = result
    }

    /// Opens `path` with `flags` (`O_CLOEXEC` is always added), creating it
    /// with `mode` when `flags` has `O_CREAT`.
    /// The corresponding C function is `open`.
    package init(opening path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError) {
        let descriptor = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw SystemError.current() }
        rawValue = descriptor
    }

    deinit {
        Glibc.close(rawValue)
    }

    /// Hands the descriptor on without closing it; the caller now owns it.
    package consuming func take() -> Int32 {
        let descriptor = rawValue
        discard self
        return descriptor
    }

    /// What the descriptor refers to. The corresponding C function is `fstat`.
    package func status() throws(SystemError) -> stat {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw SystemError.current() }
        return info
    }

    /// Up to `count` bytes at `offset`, fewer at the end of the file, without
    /// moving the file position. The corresponding C function is `pread`.
    package func read(at offset: UInt64, count: Int) throws(SystemError) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { pread(rawValue, buffer.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled)) }
            }
            if got < 0 { throw SystemError.current() }
            if got == 0 { break }
            filled += got
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Writes all of `bytes` at the file position.
    /// The corresponding C function is `write`.
    package func write(_ bytes: [UInt8]) throws(SystemError) {
        let failure: SystemError? = bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = SystemCall.retrying { Glibc.write(rawValue, buffer.baseAddress! + offset, buffer.count - offset) }
                if count < 0 { return SystemError.current() }
                offset += count
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Flushes the file's data and metadata to the disk.
    /// The corresponding C function is `fsync`.
    package func synchronize() throws(SystemError) {
        guard fsync(rawValue) == 0 else { throw SystemError.current() }
    }

    /// Sets the file's permission bits. The corresponding C function is `fchmod`.
    package func setPermissions(_ mode: mode_t) throws(SystemError) {
        guard fchmod(rawValue, mode) == 0 else { throw SystemError.current() }
    }
}

/// A C library call failed: its `errno` and the system's sentence for it.
package struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errno` value, such as `ENOENT`.
    package var code: Int32

    /// Wraps `code`.
    package init(code: Int32) {
        self.code = code
    }

    /// The error of the last failed call on this thread.
    package static func current() -> SystemError {
        SystemError(code: errno)
    }

    /// The system's sentence, in lower case: "no such file or directory".
    package var description: String {
        String(cString: strerror(code)).lowercased()
    }
}
