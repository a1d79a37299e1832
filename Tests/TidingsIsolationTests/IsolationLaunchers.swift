import TestSupport
import TidingsIsolation
import TidingsRuntime

extension IsolationMode {
    /// Worker settings for tests: the `tidings` product as the worker, restarted without delay.
    /// The test process is a host of workers: it hardens itself first, as `tidings` does at its start.
    static var workerSettings: WorkerSettings {
        try! HostHardening.apply()
        var settings = WorkerSettings(executable: Locations.product("tidings"))
        settings.restarts.initialBackoff = 0
        return settings
    }

    /// The launcher of this mode, a worker one with `settings`.
    func launcher(_ settings: WorkerSettings = Self.workerSettings) -> any ExtensionLauncher {
        self == .worker ? WorkerLauncher(settings: settings) : InProcessLauncher()
    }
}
