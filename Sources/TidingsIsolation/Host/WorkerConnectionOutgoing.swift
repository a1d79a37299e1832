extension WorkerConnection {
    /// What one `post` sends, given the message held before it: the
    /// datagrams, in order, and what is held after.
    struct Outgoing: Equatable {
        /// The datagrams to send now, in order, each with its files.
        var datagrams: [Datagram] = []
        /// The message held for the next post.
        var held: [UInt8]?

        /// One datagram.
        struct Datagram: Equatable {
            var bytes: [UInt8]
            var files: [Int32] = []
        }

        /// Posting `message` (with `files`) after `held`: a message with no
        /// files and `holding` is held when nothing is; what was held goes
        /// with the message in one batch when neither has files and both fit
        /// one datagram, else just before it.
        init(held: [UInt8]?, posting message: [UInt8], files: [Int32], holding: Bool) {
            guard let earlier = held else {
                if holding && files.isEmpty { self.held = message } else { datagrams = [Datagram(bytes: message, files: files)] }
                return
            }
            if files.isEmpty && earlier.count + message.count + 16 <= WorkerChannel.maximumMessageSize {
                datagrams = [Datagram(bytes: WorkerMessage.batch(of: [earlier, message]))]
            } else {
                datagrams = [Datagram(bytes: earlier), Datagram(bytes: message, files: files)]
            }
        }
    }
}
