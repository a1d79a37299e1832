import TidingsBase

/// The device's position, as a front end tells the server (`location.update`):
/// the typed form of the call, checked before it is sent. Latitude and
/// longitude in degrees, accuracy in metres (`CLLocation.horizontalAccuracy`;
/// nil: exact). A value outside −90…90, −180…180, or an accuracy that is
/// negative or not finite, is refused with `location.invalid`, never sent.
package struct LocationUpdate: Hashable, Sendable {
    /// Degrees, −90…90.
    package let latitude: Double
    /// Degrees, −180…180.
    package let longitude: Double
    /// Metres, finite and ≥ 0; nil when the position is exact.
    package let accuracy: Double?

    /// The diagnostic code of a position refused.
    package static let invalid = Diagnostic.Code("location.invalid")

    /// The position at `latitude`, `longitude` with `accuracy`.
    /// - Throws: `location.invalid` when a number is out of its range or not finite.
    package init(latitude: Double, longitude: Double, accuracy: Double? = nil) throws(Diagnostic) {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw .error(Self.invalid, "A latitude is -90 to 90 degrees; \(latitude) is not.")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw .error(Self.invalid, "A longitude is -180 to 180 degrees; \(longitude) is not.")
        }
        if let accuracy, !(accuracy.isFinite && accuracy >= 0) {
            throw .error(Self.invalid, "An accuracy is a finite number of metres, 0 or more; \(accuracy) is not.")
        }
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
    }

    /// The `location.update` params.
    package var params: JSON {
        var members: [(String, JSON)] = [("latitude", .double(latitude)), ("longitude", .double(longitude))]
        if let accuracy { members.append(("accuracy", .double(accuracy))) }
        return .object(members)
    }

    /// One region request the position fired.
    package struct Fired: Hashable, Sendable {
        /// The request's app.
        package var app: String
        /// The request's identifier.
        package var identifier: String
        /// `entry` or `exit`.
        package var crossing: String
    }

    /// The requests the answer `result` of `location.update` says fired (those it names wholly).
    package static func fired(_ result: JSON) -> [Fired] {
        (result["fired"]?.arrayValue ?? []).compactMap { item in
            guard let app = item["app"]?.stringValue, let identifier = item["identifier"]?.stringValue,
                  let crossing = item["crossing"]?.stringValue else { return nil }
            return Fired(app: app, identifier: identifier, crossing: crossing)
        }
    }
}
