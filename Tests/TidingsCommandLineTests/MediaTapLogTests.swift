import Foundation
import TestSupport
import Testing

/// `tidings deliver --tap-media-button`: what the extension logs inside
/// `media_play` is part of the tap's output, as a delivery's log is of the delivery's.
@Suite struct MediaTapLogTests {
    let tidings = Tidings()
    let work = TemporaryDirectory("media-tap-log")

    static let source = """
        #include <stdlib.h>
        #include "tidings.h"

        static const tidings_host *host;

        static void *create(tidings_context context) {
            tidings_context *self = malloc(sizeof *self);
            if (self != NULL) { *self = context; }
            return self;
        }

        static void destroy(void *instance) { free(instance); }

        static void did_receive_notification(void *instance, const tidings_notification *notification) {
            (void)notification;
            tidings_media_button button = {sizeof(tidings_media_button), TIDINGS_MEDIA_BUTTON_OVERLAY, {8, 8, 44, 44},
                                           TIDINGS_RGBA(0xFF, 0xFF, 0xFF, 0xFF)};
            host->set_media_button(*(tidings_context *)instance, &button);
        }

        static void media_play(void *instance) {
            host->log(*(tidings_context *)instance, TIDINGS_LOG_INFO, "playing from the start");
        }

        static void media_pause(void *instance) { (void)instance; }

        static const tidings_extension descriptor = {
            .struct_size = sizeof(tidings_extension),
            .abi_version = 1,
            .create = create,
            .destroy = destroy,
            .did_receive_notification = did_receive_notification,
            .media_play = media_play,
            .media_pause = media_pause,
        };

        TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t version, const tidings_host *table) {
            if (version < 1 || table == NULL) { return NULL; }
            host = table;
            return &descriptor;
        }

        """

    /// The player extension in a directory of its own, and a payload of its category.
    func player() throws -> (extensions: String, payload: String) {
        let extensions = work.file("extensions")
        let library = try CCompiler.sharedLibrary(try work.write(Self.source, to: "player.c"), output: work.file("libPlayer.so"))
        try BundleMaker.make("Player", in: extensions, manifest: BundleMaker.contentManifest(
            identifier: "com.example.podcasts.player", executable: "libPlayer.so", categories: ["episode"]), library: library)
        let payload = try work.write(#"{"aps": {"alert": {"title": "New episode"}, "category": "episode"}}"#, to: "episode.json")
        return (extensions, payload)
    }

    @Test(arguments: ["text", "json"])
    func logLinesInsideMediaPlayReachTheTapsOutput(_ format: String) throws {
        let (extensions, payload) = try player()
        let delivered = try tidings.run(["deliver", payload, "--app", "com.example.podcasts", "--extensions", extensions,
                                         "--tap-media-button"] + (format == "json" ? ["--json"] : []))
        #expect(delivered.status == 0, "\(delivered.standardError)")
        if format == "json" {
            let output = try #require(try JSONSerialization.jsonObject(with: Data(delivered.standardOutput.utf8)) as? [String: Any])
            let log = try #require(output[path: "mediaTap", "log"] as? [[String: Any]])
            #expect(log.contains { ($0["message"] as? String) == "playing from the start" }, "\(log)")
            #expect(output[path: "mediaTap", "mediaButton", "playing"] as? Bool == true)
        } else {
            let tap = try #require(delivered.standardOutput.components(separatedBy: "Media button").last)
            #expect(tap.contains("playing from the start"), "\(delivered.standardOutput)")
        }
    }
}
