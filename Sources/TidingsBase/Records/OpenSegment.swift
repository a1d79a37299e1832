import Glibc

/// The segment a loaded store appends to, and what the store knows about it.
struct OpenSegment: ~Copyable {
    /// Opened with `O_APPEND`, so that every write lands at the end.
    let descriptor: FileDescriptor
    /// Its path.
    var path: String
    /// The file's size: where the next record begins.
    var size: Int
    /// Its generation.
    let generation: UInt64
    /// True once its name is known to be on disk (the directory was flushed since it was made).
    var isInDirectory: Bool
    /// Why the segment takes no more records, when it does not.
    var failure: Diagnostic?

    /// An open segment that takes records.
    init(descriptor: consuming FileDescriptor, path: String, size: Int, generation: UInt64, isInDirectory: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.size = size
        self.generation = generation
        self.isInDirectory = isInDirectory
        failure = nil
    }

    /// A new descriptor of the same open file, or -1 with `errno` set.
    /// The corresponding C function is `fcntl(F_DUPFD_CLOEXEC)`.
    func duplicateDescriptor() -> Int32 {
        fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
    }

    /// Writes `frame` at the end; on failure cuts off what was written of it.
    mutating func append(_ frame: [UInt8]) throws(Diagnostic) {
        if let failure { throw failure }
        do throws(SystemError) {
            try descriptor.write(frame)
        } catch {
            let diagnostic = DurableFile.failure(error, "cannot append a record to", path)
            do throws(SystemError) {
                try descriptor.truncate(to: size)
            } catch {
                failure = .error(
                    diagnostic.code,
                    "\(path) may end with part of a record: after a failed append (\(diagnostic.message)) it could not be cut back to \(size) bytes (\(error)). The next record starts a new segment.",
                    at: .init(file: path))
                throw failure!
            }
            throw diagnostic
        }
        size += frame.count
    }
}
