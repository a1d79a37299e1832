import TestSupport
import TidingsIsolation
import TidingsRuntime

extension IsolationMode {
    /// Worker settings for tests: the `tidings` product as the worker, restarted without delay.
    static var workerSettings: WorkerSettings {
        var settings = WorkerSettings(executable: Locations.product("tidings"))
        settings.restarts.initialBackoff = 0
        return settings
    }

    /// The launcher of this mode, a worker one with `settings`.
    func launcher(_ settings: WorkerSettings = Self.workerSettings) -> any ExtensionLauncher {
        self == .worker ? WorkerLauncher(settings: settings) : InProcessLauncher()
    }
}
