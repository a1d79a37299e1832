import TidingsBase
import TidingsRuntime

/// The text of each file `tidings new` makes.
enum ScaffoldTemplates {
    static func manifest(_ project: Scaffold) -> String {
        let attributes: String
        switch project.kind {
        case .content:
            let categories = project.categories.map { "\t\t\t\t<string>\($0)</string>\n" }.joined()
            attributes = """
                \t\t<key>NSExtensionMainStoryboard</key>
                \t\t<string>MainInterface</string>
                \t\t<key>NSExtensionAttributes</key>
                \t\t<dict>
                \t\t\t<key>UNNotificationExtensionCategory</key>
                \t\t\t<array>
                \(categories)\t\t\t</array>
                \t\t\t<key>UNNotificationExtensionInitialContentSizeRatio</key>
                \t\t\t<real>0.5</real>
                \t\t\t<key>UNNotificationExtensionDefaultContentHidden</key>
                \t\t\t<false/>
                \t\t</dict>

                """
        case .service:
            attributes = "\t\t<key>NSExtensionPrincipalClass</key>\n\t\t<string>\(project.name)</string>\n"
        case .app:
            // An app has no extension manifest: ScaffoldAppTemplates makes its files.
            attributes = ""
        }
        let point = project.kind == .content ? "com.apple.usernotifications.content-extension" : "com.apple.usernotifications.service"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>CFBundleDisplayName</key>
            \t<string>\(project.name)</string>
            \t<key>CFBundleExecutable</key>
            \t<string>\(project.library)</string>
            \t<key>CFBundleIdentifier</key>
            \t<string>\(project.bundleIdentifier)</string>
            \t<key>CFBundleShortVersionString</key>
            \t<string>1.0</string>
            \t<key>NSExtension</key>
            \t<dict>
            \t\t<key>NSExtensionPointIdentifier</key>
            \t\t<string>\(point)</string>
            \(attributes)\t</dict>
            </dict>
            </plist>

            """
    }

    static let interface = """
        {
          "version": 1,
          "root": {
            "type": "stack",
            "id": "content",
            "axis": "vertical",
            "spacing": 8,
            "children": [
              { "type": "label", "id": "title", "style": "headline" },
              { "type": "label", "id": "body", "style": "body" },
              { "type": "label", "id": "status", "style": "footnote", "hidden": true }
            ]
          }
        }

        """

    static func categories(_ project: Scaffold) -> String {
        let categories = project.categories.map { category in
            """
                {
                  "identifier": "\(category)",
                  "actions": [
                    { "identifier": "done", "title": "Done" },
                    { "identifier": "reply", "title": "Reply", "textInput": { "buttonTitle": "Send", "placeholder": "Your reply" } }
                  ]
                }
            """
        }.joined(separator: ",\n")
        return "{\n  \"app\": \"\(project.app)\",\n  \"categories\": [\n\(categories)\n  ]\n}\n"
    }

    static func payload(_ project: Scaffold) -> String {
        let extra = project.kind == .content
            ? "\"category\": \"\(project.categories[0])\",\n    \"thread-id\": \"sample\""
            : "\"mutable-content\": 1"
        return """
            {
              "aps": {
                "alert": { "title": "Hello from \(project.name)", "body": "A sample notification for \(project.app)." },
                \(extra)
              },
              "detail": "Anything beside aps reaches the extension as userInfo."
            }

            """
    }

    static func readme(_ project: Scaffold) -> String {
        let what = project.kind == .content
            ? "a content extension of \(project.app) for \(project.categories.map { "`\($0)`" }.joined(separator: ", "))"
            : "a service extension of \(project.app)"
        return """
            # \(project.name)

            \(project.name) is \(what), made by `tidings new`, in \(project.language == .swift ? "Swift" : "C").

            ```
            \(project.buildCommand)
            \(project.validateCommand)
            \(project.installCommand)
            \(project.deliverCommand)
            ```

            `\(project.validateCommand)` loads the built library in a sandboxed worker and exercises it as hosts do\(project.language == .swift ? "; it uses the newest of `.build/debug/\(project.library)` and `.build/release/\(project.library)` (`swift build -c release` makes the second), and says which" : "").
            `tidings manifest lint \(project.name)` says what is wrong with the installed bundle, if anything.
            Edit `Info.plist` with `tidings manifest` (see `tidings manifest --help`)\(project.kind == .content ? ", the view in `MainInterface.json`, the actions in `categories.json`" : "").

            """
    }

    // MARK: Swift

    static func package(_ project: Scaffold) -> String {
        let dependency: String
        let identity: String
        let package = project.source.package ?? ""
        if package.contains("://") {
            dependency = ".package(url: \"\(package)\", from: \"\(HostFunctions.version)\")"
            identity = Path.deletingExtension(of: Path.lastComponent(of: package)).lowercased()
        } else {
            dependency = ".package(path: \"\(package)\")"
            identity = Path.lastComponent(of: package).lowercased()
        }
        return """
            // swift-tools-version: 6.0
            // \(project.name): \(project.kind == .content ? "a content" : "a service") extension, a dynamic library the Tidings host loads.
            import PackageDescription

            let package = Package(
                name: "\(project.name)",
                products: [
                    .library(name: "\(project.name)", type: .dynamic, targets: ["\(project.name)"]),
                ],
                dependencies: [
                    // A package is known by its identity: the last part of its path or URL, in lower case.
                    \(dependency),
                ],
                targets: [
                    .target(name: "\(project.name)", dependencies: [.product(name: "TidingsSDK", package: "\(identity)")]),
                ]
            )

            """
    }

    private static func swiftEntries(_ type: String) -> String {
        """
        // The entry of hosts of ABI version 3 and later, and the one of older hosts.
        @c(tidings_extension_entry_v3)
        public func tidingsExtensionEntryV3(_ info: UnsafeRawPointer?) -> UnsafeRawPointer? {
            NotificationExtensionEntry.descriptor(for: \(type).self, entryInfo: info)
        }

        @c(tidings_extension_entry)
        public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
            NotificationExtensionEntry.descriptor(for: \(type).self, hostVersion: hostVersion, host: host)
        }

        """
    }

    static func swiftContent(_ project: Scaffold) -> String {
        let type = "\(project.name)ViewController"
        return """
            import TidingsSDK

            /// Draws \(project.app)'s notifications of \(project.categories.joined(separator: ", ")) and answers their actions.
            final class \(type): NotificationContentExtension, NotificationResponseHandling {
                private let context: NotificationExtensionContext

                init(context: NotificationExtensionContext) {
                    self.context = context
                }

                func didReceive(_ notification: DeliveredNotification) {
                    context.setText(notification.content.title, of: "title")
                    context.setText(notification.content.body, of: "body")
                }

                func didReceive(_ response: NotificationResponse,
                                completionHandler completion: @escaping @Sendable (ContentExtensionResponseOption) -> Void) {
                    switch response.actionIdentifier {
                    case "done":
                        context.setText("Done.", of: "status")
                        context.setHidden(false, of: "status")
                        completion(.doNotDismiss)
                    default:
                        // Replies and everything else go on to the app.
                        completion(.dismissAndForwardAction)
                    }
                }
            }

            \(swiftEntries(type))
            """
    }

    static func swiftService(_ project: Scaffold) -> String {
        """
        import TidingsSDK

        /// Rewrites \(project.app)'s remote notifications (those with mutable-content) before they are shown.
        final class \(project.name): NotificationServiceExtension {
            private let context: NotificationExtensionContext

            init(context: NotificationExtensionContext) {
                self.context = context
            }

            func didReceive(_ request: DeliveredNotification,
                            withContentHandler contentHandler: @escaping @Sendable (NotificationContent) -> Void) {
                var content = request.content
                content.title = "[\(project.name)] " + content.title
                contentHandler(content)
            }

            func serviceExtensionTimeWillExpire() {
                // Called when time runs out: hand back a best attempt here if didReceive has not yet.
            }
        }

        \(swiftEntries(project.name))
        """
    }

    // MARK: C

    static func makefile(_ project: Scaffold) -> String {
        let include = "-I" + (project.source.include ?? "")
        return """
            # Builds \(project.library) from \(project.name).c against the Tidings header.
            # Once Tidings is installed, TIDINGS_CFLAGS="$$(pkg-config --cflags tidings)" finds it too.
            TIDINGS_CFLAGS ?= \(include)
            CFLAGS ?= -std=c99 -O2 -g -Wall -Wextra

            \(project.library): \(project.name).c
            \t$(CC) $(CFLAGS) $(TIDINGS_CFLAGS) -shared -fPIC -o $@ $<

            install: \(project.library)
            \t\(project.installCommand)

            clean:
            \trm -f \(project.library)

            .PHONY: install clean

            """
    }

    private static func cEntry(version: Int) -> String {
        """
        TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
            if (host_abi_version < \(version) || table == NULL || !TIDINGS_HAS_FIELD(table, tidings_host, \(version == 1 ? "complete_response" : "complete_request"))) {
                return NULL; /* a host too old for what this extension uses */
            }
            host = table;
            return &descriptor;
        }

        """
    }

    static func cContent(_ project: Scaffold) -> String {
        """
        /*
         * \(project.name): draws \(project.app)'s notifications of \(project.categories.joined(separator: ", ")), in C99 with tidings.h alone.
         */
        #include <stdlib.h>
        #include <string.h>

        #include "tidings.h"

        static const tidings_host *host;

        static void *create(tidings_context context) {
            tidings_context *self = malloc(sizeof *self);
            if (self != NULL) {
                *self = context;
            }
            return self;
        }

        static void destroy(void *instance) {
            free(instance);
        }

        static void did_receive_notification(void *instance, const tidings_notification *notification) {
            tidings_context context = *(tidings_context *)instance;
            host->set_text(context, "title", notification->content->title);
            host->set_text(context, "body", notification->content->body);
        }

        static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
            tidings_context context = *(tidings_context *)instance;
            if (strcmp(response->action_identifier, "done") == 0) {
                host->set_text(context, "status", "Done.");
                host->set_hidden(context, "status", false);
                host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
                return;
            }
            /* Replies and everything else go on to the app. */
            host->complete_response(completion, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION);
        }

        static const tidings_extension descriptor = {
            .struct_size = sizeof(tidings_extension),
            .abi_version = 1,
            .create = create,
            .destroy = destroy,
            .did_receive_notification = did_receive_notification,
            .did_receive_response = did_receive_response,
        };

        \(cEntry(version: 1))
        """
    }

    static func cService(_ project: Scaffold) -> String {
        """
        /*
         * \(project.name): rewrites \(project.app)'s remote notifications (those with mutable-content) before they are shown.
         */
        #include <stdio.h>
        #include <stdlib.h>

        #include "tidings.h"

        static const tidings_host *host;
        static char marker;

        static void *create(tidings_context context) {
            (void)context;
            return &marker;
        }

        static void destroy(void *instance) {
            (void)instance;
        }

        static void did_receive_request(void *instance, const tidings_notification *request, tidings_completion completion) {
            char title[512];
            tidings_content content = *request->content;
            (void)instance;
            snprintf(title, sizeof title, "[\(project.name)] %s", request->content->title);
            content.title = title;
            host->complete_request(completion, &content); /* the host copies the content */
        }

        static void time_will_expire(void *instance) {
            (void)instance; /* did_receive_request always completes at once */
        }

        static const tidings_extension descriptor = {
            .struct_size = sizeof(tidings_extension),
            .abi_version = 2,
            .create = create,
            .destroy = destroy,
            .did_receive_request = did_receive_request,
            .service_extension_time_will_expire = time_will_expire,
        };

        \(cEntry(version: 2))
        """
    }
}
