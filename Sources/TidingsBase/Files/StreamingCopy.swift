import Glibc

extension FileDescriptor {
    /// Copies the whole content of this regular file to `destination` (an
    /// empty file open for writing) through a fixed 1 MiB buffer, never
    /// holding more: only the ranges that hold data are read and written
    /// (`lseek` with `SEEK_DATA`/`SEEK_HOLE`), and the copy is extended to
    /// the source's size, so a sparse file stays sparse — a 10 GiB file of
    /// holes costs what its data costs. Returns the bytes of the copy.
    package func copyContents(to destination: borrowing FileDescriptor) throws(SystemError) -> UInt64 {
        let size = UInt64(max(0, try status().st_size))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        // Linux's values (<unistd.h> defines them only with _GNU_SOURCE).
        let seekData: Int32 = 3, seekHole: Int32 = 4
        var offset: UInt64 = 0
        while offset < size {
            let data = lseek(rawValue, off_t(offset), seekData)
            if data < 0 {
                let error = SystemError.current()
                if error.code == ENXIO { break }  // Only a hole is left.
                // No SEEK_DATA on this file system: all of it is data.
                guard error.code == EINVAL else { throw error }
                try copyRange(from: offset, to: size, into: destination, through: buffer)
                break
            }
            let hole = lseek(rawValue, data, seekHole)
            let end = hole < 0 ? size : min(size, UInt64(hole))
            guard UInt64(data) < end else { break }
            try copyRange(from: UInt64(data), to: end, into: destination, through: buffer)
            offset = end
        }
        guard ftruncate(destination.rawValue, off_t(size)) == 0 else { throw SystemError.current() }
        return size
    }

    /// Copies the bytes from `start` up to `end` to the same offsets of `destination`, through `buffer`.
    private func copyRange(from start: UInt64, to end: UInt64, into destination: borrowing FileDescriptor,
                           through buffer: UnsafeMutableRawBufferPointer) throws(SystemError) {
        var offset = start
        while offset < end {
            let want = Int(min(UInt64(buffer.count), end - offset))
            let got = SystemCall.retrying { pread(rawValue, buffer.baseAddress!, want, off_t(offset)) }
            if got < 0 { throw SystemError.current() }
            if got == 0 { return }  // The file shrank meanwhile: what is left is the size's hole.
            var written = 0
            while written < got {
                let count = SystemCall.retrying {
                    pwrite(destination.rawValue, buffer.baseAddress! + written, got - written, off_t(offset) + off_t(written))
                }
                if count < 0 { throw SystemError.current() }
                written += count
            }
            offset += UInt64(got)
        }
    }
}
