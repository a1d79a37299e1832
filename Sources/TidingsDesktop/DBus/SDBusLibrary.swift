import TidingsDesktopShims
import TidingsLoader

/// libsystemd's sd-bus, opened with `dlopen` at run time: the package does
/// not link it, so it builds and runs where it is missing, and only the
/// desktop front end needs it. The functions are resolved once, by name,
/// into typed C function pointers.
///
/// The library is never closed (`DynamicLibrary` never calls `dlclose`):
/// sd-bus keeps per-thread default buses and memory pools that outlive any
/// one connection, so unloading it under a running process is unsafe.
/// The value is immutable after `init`, so it is shared between threads;
/// the connections made with it are not (see `BusConnection`).
package final class SDBusLibrary: @unchecked Sendable {
    /// Where the library is looked up by default: its soname, through the loader's search path.
    package static let defaultPath = "libsystemd.so.0"

    private let library: DynamicLibrary

    let new: tidings_sd_bus_new
    let setAddress: tidings_sd_bus_set_address
    let setBusClient: tidings_sd_bus_set_bus_client
    let setDescription: tidings_sd_bus_set_description
    let start: tidings_sd_bus_start
    let flushCloseUnref: tidings_sd_bus_flush_close_unref
    let getUniqueName: tidings_sd_bus_get_unique_name
    let requestName: tidings_sd_bus_request_name
    let process: tidings_sd_bus_process
    let wait: tidings_sd_bus_wait
    let getFD: tidings_sd_bus_get_fd
    let getEvents: tidings_sd_bus_get_events
    let getTimeout: tidings_sd_bus_get_timeout
    let newMethodCall: tidings_sd_bus_message_new_method_call
    let newMethodReturn: tidings_sd_bus_message_new_method_return
    let newSignal: tidings_sd_bus_message_new_signal
    let call: tidings_sd_bus_call
    let send: tidings_sd_bus_send
    let callAsync: tidings_sd_bus_call_async
    let getError: tidings_sd_bus_message_get_error
    let matchSignal: tidings_sd_bus_match_signal
    let addObject: tidings_sd_bus_add_object
    let slotUnref: tidings_sd_bus_slot_unref
    let messageUnref: tidings_sd_bus_message_unref
    let appendBasic: tidings_sd_bus_message_append_basic
    let openContainer: tidings_sd_bus_message_open_container
    let closeContainer: tidings_sd_bus_message_close_container
    let readBasic: tidings_sd_bus_message_read_basic
    let enterContainer: tidings_sd_bus_message_enter_container
    let exitContainer: tidings_sd_bus_message_exit_container
    let peekType: tidings_sd_bus_message_peek_type
    let skip: tidings_sd_bus_message_skip
    let readArray: tidings_sd_bus_message_read_array
    let getExpectReply: tidings_sd_bus_message_get_expect_reply
    let getMember: tidings_sd_bus_message_get_string
    let getInterface: tidings_sd_bus_message_get_string
    let getPath: tidings_sd_bus_message_get_string
    let getSender: tidings_sd_bus_message_get_string
    let errorFree: tidings_sd_bus_error_free
    let errorSet: tidings_sd_bus_error_set

    /// Opens the library at `path` and resolves every function the wrapper calls.
    /// - Throws: `dbus.no-library` when it cannot be opened or lacks one of them.
    package init(path: String = SDBusLibrary.defaultPath) throws(BusError) {
        let opened: DynamicLibrary
        do {
            opened = try DynamicLibrary(opening: path)
        } catch {
            throw BusError(BusError.noLibrary, "cannot open \(path): \(error.message)")
        }
        new = try Self.resolve("sd_bus_new", in: opened, at: path)
        setAddress = try Self.resolve("sd_bus_set_address", in: opened, at: path)
        setBusClient = try Self.resolve("sd_bus_set_bus_client", in: opened, at: path)
        setDescription = try Self.resolve("sd_bus_set_description", in: opened, at: path)
        start = try Self.resolve("sd_bus_start", in: opened, at: path)
        flushCloseUnref = try Self.resolve("sd_bus_flush_close_unref", in: opened, at: path)
        getUniqueName = try Self.resolve("sd_bus_get_unique_name", in: opened, at: path)
        requestName = try Self.resolve("sd_bus_request_name", in: opened, at: path)
        process = try Self.resolve("sd_bus_process", in: opened, at: path)
        wait = try Self.resolve("sd_bus_wait", in: opened, at: path)
        getFD = try Self.resolve("sd_bus_get_fd", in: opened, at: path)
        getEvents = try Self.resolve("sd_bus_get_events", in: opened, at: path)
        getTimeout = try Self.resolve("sd_bus_get_timeout", in: opened, at: path)
        newMethodCall = try Self.resolve("sd_bus_message_new_method_call", in: opened, at: path)
        newMethodReturn = try Self.resolve("sd_bus_message_new_method_return", in: opened, at: path)
        newSignal = try Self.resolve("sd_bus_message_new_signal", in: opened, at: path)
        call = try Self.resolve("sd_bus_call", in: opened, at: path)
        send = try Self.resolve("sd_bus_send", in: opened, at: path)
        callAsync = try Self.resolve("sd_bus_call_async", in: opened, at: path)
        getError = try Self.resolve("sd_bus_message_get_error", in: opened, at: path)
        matchSignal = try Self.resolve("sd_bus_match_signal", in: opened, at: path)
        addObject = try Self.resolve("sd_bus_add_object", in: opened, at: path)
        slotUnref = try Self.resolve("sd_bus_slot_unref", in: opened, at: path)
        messageUnref = try Self.resolve("sd_bus_message_unref", in: opened, at: path)
        appendBasic = try Self.resolve("sd_bus_message_append_basic", in: opened, at: path)
        openContainer = try Self.resolve("sd_bus_message_open_container", in: opened, at: path)
        closeContainer = try Self.resolve("sd_bus_message_close_container", in: opened, at: path)
        readBasic = try Self.resolve("sd_bus_message_read_basic", in: opened, at: path)
        enterContainer = try Self.resolve("sd_bus_message_enter_container", in: opened, at: path)
        exitContainer = try Self.resolve("sd_bus_message_exit_container", in: opened, at: path)
        peekType = try Self.resolve("sd_bus_message_peek_type", in: opened, at: path)
        skip = try Self.resolve("sd_bus_message_skip", in: opened, at: path)
        readArray = try Self.resolve("sd_bus_message_read_array", in: opened, at: path)
        getExpectReply = try Self.resolve("sd_bus_message_get_expect_reply", in: opened, at: path)
        getMember = try Self.resolve("sd_bus_message_get_member", in: opened, at: path)
        getInterface = try Self.resolve("sd_bus_message_get_interface", in: opened, at: path)
        getPath = try Self.resolve("sd_bus_message_get_path", in: opened, at: path)
        getSender = try Self.resolve("sd_bus_message_get_sender", in: opened, at: path)
        errorFree = try Self.resolve("sd_bus_error_free", in: opened, at: path)
        errorSet = try Self.resolve("sd_bus_error_set", in: opened, at: path)
        library = opened
    }

    /// The function `name` of the library, as the C function pointer type `Function`.
    private static func resolve<Function>(_ name: String, in library: borrowing DynamicLibrary,
                                          at path: String) throws(BusError) -> Function {
        guard let function = library.function(named: name, as: Function.self) else {
            throw BusError(BusError.noLibrary, "\(path) has no function \(name)")
        }
        return function
    }
}
