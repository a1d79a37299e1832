import Glibc
import TidingsBase
import TidingsRuntime

/// Location triggers: the device's position, as a front end reports it
/// (`location.update`), against each pending location request's region.
///
/// A position whose accuracy (metres) is coarser than a region's radius
/// says nothing of that region. The first position a region is told only
/// establishes whether the device is inside (nothing fires: it did not
/// cross); each later one that crosses the region's edge fires on entry or
/// exit, as the region asks. A one-shot request fires once and is removed; a
/// repeating one fires on every crossing. Whether the device is inside is
/// kept in memory only: after a restart, the first position establishes it again.
extension PendingScheduler {
    /// The mean radius of the Earth, in metres.
    static let earthRadius = 6_371_008.8

    /// Takes the device's position (degrees, and its accuracy in metres)
    /// and fires the location requests it crosses the region of; returns them.
    func locate(latitude: Double, longitude: Double, accuracy: Double?) -> [Firing] {
        let firings = book.withLock { book -> [Firing] in
            let wallNow = clock.wallNow()
            var firings: [Firing] = []
            for key in book.regions.sorted(by: { ($0.app, $0.identifier) < ($1.app, $1.identifier) }) {
                guard var request = book.requests[key], !request.firing, case .boxed(let box) = request.trigger,
                      case .location(let region, let repeats) = box.trigger
                else { continue }
                if let accuracy, accuracy > region.radius { continue }
                let inside = Self.distance(from: (latitude, longitude), to: (region.latitude, region.longitude)) <= region.radius
                let was = request.inside
                request.inside = inside
                if let was, was != inside, inside ? region.notifyOnEntry : region.notifyOnExit {
                    firings.append(Firing(key: key, number: request.number, record: request.record, trigger: box.trigger,
                                          date: wallNow, late: false, crossing: inside ? "entry" : "exit"))
                    if !repeats { request.firing = true }
                }
                book.requests[key] = request
            }
            return firings
        }
        deliver(firings)
        return firings
    }

    /// The great-circle distance between two points (degrees), in metres (the haversine formula).
    static func distance(from first: (Double, Double), to second: (Double, Double)) -> Double {
        let radians = Double.pi / 180
        let (φ1, φ2) = (first.0 * radians, second.0 * radians)
        let Δφ = φ2 - φ1, Δλ = (second.1 - first.1) * radians
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}
