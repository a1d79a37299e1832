import Glibc
import Testing
import TidingsBase

/// A shim's result is adopted as a descriptor only when it is one: a
/// negative errno (`tidings_eventfd()` out of descriptors) is an error value.
struct FileDescriptorTests {
    @Test func aNegativeErrnoIsAnErrorNotADescriptor() {
        #expect(throws: SystemError(code: EMFILE)) { _ = try FileDescriptor(adoptingResult: -EMFILE) }
    }

    @Test func aDescriptorIsAdopted() throws {
        let copy = try FileDescriptor(adoptingResult: fcntl(2, F_DUPFD_CLOEXEC, 3))
        #expect(copy.rawValue >= 3)
        #expect(fcntl(copy.rawValue, F_GETFD) >= 0)
    }
}
