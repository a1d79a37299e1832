/// What `tidings-benchmark --help` prints, including how to reproduce the numbers.
enum HelpText {
    /// The whole help text.
    static let text = """
        tidings-benchmark: how fast the Tidings host turns notifications into
        presentations and responses into outcomes, against a plain C call.

        Usage: tidings-benchmark [OPTIONS]

        Reproduce (from the package root; release mode matters):
          swift build -c release
          swift run -c release tidings-benchmark
        or, with a scratch path of your own:
          swift build --scratch-path .build-bench -c release
          .build-bench/release/tidings-benchmark [--json]
        Build everything first: `swift run` builds only the benchmark, and the
        benchmark needs libNoOp.so and tidings beside its own executable.

        What it does, in one run, with no manual steps:
          - makes a temporary extension directory ($TMPDIR or /tmp) holding
            NoOp.appex (Manifests/NoOp.plist as Info.plist, the libNoOp.so
            built beside this executable), plus 99 copies of it with their
            own identifiers (com.example.bench.noop002, ...) and categories
            (noop002, ...), all of app com.example.bench; removes it at the end;
          - pins itself to one CPU (--cpu, default 0) with sched_setaffinity;
            the processes it spawns inherit the pin (or use --no-pin under
            `taskset -c 0`);
          - in process, median ns/op of --repetitions timed loops, each at
            least --min-time long, all through the same loop (one closure call
            per operation, results summed into an atomic sink):
              baseline      tidings_noop_direct(instance, notification) through
                            its dlsym address, on a notification marshalled
                            once before the loop: a plain C call;
              deliver-reuse NotificationHost.deliver of a notification of
                            thread "bench" while another of that thread stays
                            presented: the instance is reused; the request
                            identifier is the same each time, so each delivery
                            replaces the previous one; the same notification
                            value every time, so its C layout (structs, strings,
                            userInfo as JSON), which the host keeps with the
                            value, is made once: the steady state;
              deliver-fresh deliver-reuse, but with a notification value made
                            anew for each delivery (as a front end makes one
                            per arriving notification), so nothing is kept
                            from an earlier delivery: the first delivery's
                            cost (the C layout made), making the value included;
              deliver-new   NotificationHost.deliver of a notification without
                            a thread under one request identifier: each one
                            replaces the last, whose instance is destroyed, and
                            gets a new instance (create + destroy per op);
              respond       NotificationHost.respond with the registered action
                            "ack" of category "noop"; NoOp completes at once
                            with doNotDismiss, so one presentation answers again
                            and again;
            every notification has a title, subtitle, body, sound, thread (for
            deliver-reuse and deliver-fresh) and, as on iOS, the whole payload
            as userInfo (aps, build, branch);
          - one shot, median and p95 of --runs timed runs after --warm-up runs,
            wall time from posix_spawn to waitpid on CLOCK_MONOTONIC, output
            discarded:
              tidings --version                                (start-up floor)
              tidings deliver PAYLOAD --extensions DIR --app com.example.bench
                with a directory of 1 bundle and of --bundles bundles;
            and Discovery.scan of the --bundles directory in this process, to
            show how much of a one-shot delivery is reading manifests.
          - server (first, before the pin, so that eight clients and the server
            have the whole machine): `tidings serve` started on a Unix socket with
            NoOp and its state journaled; the server's own work for a delivery
            measured in this process without the socket, answering with the whole
            delivery and with the presentation only; then, for 1 and for 8 clients
            (one connection and one thread of notifications each, each sending its
            next request when answered, for --server-seconds after a tenth of it
            as warm-up): round trips per second (the median of five equal windows'
            rates), median and p99, first for a raw echo over the same kind of
            socket (a thread answering each line with as many bytes as the
            server's answer), then for deliver → presentation (banners, each
            asking for the presentation only: "answer": "presentation"); then one
            client against `tidings serve` in its default, isolated mode. One
            client and what answers it (the server and its workers, or the echo's
            thread) share CPU 0 while measured: a wake-up across cores costs a VM
            more than the server's work;
          - server-scale (before the pin): `tidings serve` with extensions in
            process (Misbehaving from Tests/Fixtures, built with cc): its
            threads (/proc/PID/status Threads) and resident set (VmRSS) idle,
            with --scale-connections idle connections (10,000; the soft limit
            of open files raised as needed), and with --scale-waiting
            responses (1,000) waiting on completions that never come (action
            "never", --deadline 600); and its wake-ups per second idle and
            with the connections open, over 2 s: the context switches of all
            its threads (/proc/PID/task/*/status); targets: threads at most
            idle's plus the call pool (2 × cores + 4), whatever the clients
            and waits; at most 1 wake-up per second idle;
          - cycle (before the pin): `tidings serve` with NoOp, in process and
            isolated, with --cycle-kept other notifications kept (0, 10,000
            and 100,000; --keep is that plus 16): each cycle delivers a new
            notification (answered with its presentation) and responds to its
            action, 1 and 8 clients, against a raw echo of two round trips;
            with the server's CPU per cycle (its own and its workers',
            /proc/PID/stat);
          - push (before the pin): in this process, WebPushSubscriber.decrypt
            of the sample payload (one line) and of one padded to 3,993 bytes
            (a 4,096-byte body, Web Push's largest), beside
            WebPushSender.encrypt (a new sender key pair each: what a sender
            pays), median and p99 µs; then `tidings serve` with NoOp in
            process, --push-burst and --push-rate raised to 1000000, one
            front-end connection (push.register, push.distributor,
            push.endpoint) doing push.receive of the sample payload (64
            bodies encrypted before timing) for --server-seconds, without
            ids, then with a new id each once the registration's 1,024
            remembered ids are filled (untimed; each id rewrites the
            registrations file), against notifications.deliver of the same
            payload (a new identifier each, answered with the presentation
            and with the whole delivery), and push.receive in the default,
            isolated mode: per second, median and p99 µs, the server's CPU per
            call (/proc/PID/stat); one client sharing CPU 0 with the server;
            beside the default rate limit (60 at once, 1 a second); no targets;
          - schedule (before the pin): `tidings serve` with NoOp in process,
            its state journaled and --pending-limit 1,000: --schedule-pending
            requests (100,000) added across 100 apps (64 in flight; intervals
            and dates, one-shot and repeating, hours to a year ahead): the
            time it took and the resident set (VmRSS, settled) before and
            after; then 200 requests 1–5 s ahead (50 exactly 2 s ahead), added
            one round trip at a time while another client delivers in a loop:
            how late each one's request.fired event arrives (p50, p99), from
            the middle of its requests.add round trip plus its interval; then
            the server stopped (SIGTERM) and started again over the same
            state: the time until it answers server.describe, and its
            resident set; targets: the pending requests cost < 50 MB, those
            2 s ahead fire <= 50 ms late at p99;
          - isolation (before the pin, so that the worker has a core of its
            own): deliver → presentation with NoOp, the same thread each time,
            for --server-seconds after a tenth of it: a raw round trip over a
            SOCK_SEQPACKET socket pair (600 bytes each way, a thread echoing),
            then in this process, then in a worker process (tidings worker),
            then in one again with this process and the worker on CPU 0
            (the target's row); median and p99 µs; and 20 worker cold starts
            (a new host's first delivery: spawn, load, instance, call);
          - warm (before the pin): an isolated open → first presentation of
            NoOp (closed again untimed), with the pool of warm workers (the
            defaults) for --server-seconds, and 20 with no pool (each a cold
            start); then deliver-open-respond cycles over `tidings serve`
            (a delivery opened at once, replacing the client's last, and a
            response NoOp answers), in process and isolated, with 1 and 8
            clients, beside a raw echo doing two round trips a cycle (one
            client sharing CPU 0 with the server and its workers, as in server);
          - memory (before the pin): `tidings serve` with NoOp in process and
            its state journaled, --keep as large as the rounds; its resident
            set (VmRSS) at start and idle after 1,000 notifications delivered
            and removed; then --memory-rounds times: --memory-notifications
            notifications delivered (the sample payload without its thread,
            so each has an instance of its own; 64 requests in flight), the
            resident set with them kept, all removed (notifications.remove,
            1,000 identifiers a call), and the resident set once it has not
            fallen for a second, with the peak (VmHWM);
          - soak (before the pin): `tidings serve` isolated with its warm
            workers (kept idle for the whole run) and NoOp, two clients doing
            deliver-open-respond cycles, each delivery replacing the client's
            last; the resident sets of the server (settled) and of its
            largest `tidings worker` after 5,000 cycles (past the tables
            bounded at 4,096) and after --soak-opens more;
          - discovery, for each of --discovery-bundles (100, 1,000, 10,000):
            Scripts/make-bundles.sh makes that many Tidings bundles (NoOp's
            manifest under new identifiers, libNoOp.so copied) and as many
            LV2 bundles (manifest.ttl naming a plugin, its binary and a data
            file); then, median of --discovery-runs runs after --warm-up runs,
            spawn to exit, output discarded:
              tidings list --json --extensions DIR --no-cache
                                                     every bundle read, no
                                                     cache touched;
              tidings list --json --extensions DIR   cold: each run with an
                                                     empty index cache, which
                                                     it fills and writes;
              the same, warm: the cache filled (checked to serve every bundle);
              LV2_PATH=DIR lv2ls                     lilv's lister (Debian:
                                                     lilv-utils), not compared
                                                     when missing;
            the tidings processes get a cache directory of their own
            (XDG_CACHE_HOME) in the workspace, never the user's;
          - fold (only with --only fold; before the pin, so that the folds
            have a core beside the calls): HostService over a journaled state
            in this process, NoOp serving; --fold-kept notifications (100,000)
            delivered, then new versions of them until --folds folds (5) have
            finished, every delivery timed: median, p99 and max of all, and
            p99 and max of those made while a fold ran, beside the folds' own
            median and longest duration;
          - group (before the pin, so that the journal's folds have a core
            beside the calls): for 1, 10, 100, 1,000 and 10,000 notifications
            kept in one group (one app, no thread identifier), a new
            HostService over a journaled state in this process, NoOp serving,
            keeping at most that many, filled to it; then --group-rounds
            rounds (500, after 20 untimed), each delivering a new notification
            (the oldest expires), asking for its presentation, opening it,
            responding "ack" and listing the app's next page of 1; median and
            p99 µs of each call (answered and serialised), with the median's
            ratio to its median at 1;
          - checks the targets: >= 1,000,000 deliveries/s in process (<= 1 us
            each), a one-shot delivery with 100 bundles in <= 10 ms,
            >= 50,000 round trips/s over the socket with one client (>= 25,000
            isolated), and
            discovery without the cache and with an empty one no slower than
            lv2ls, and from the cache in at most a tenth of lv2ls's time, and
            the server's memory after removing everything within twice idle;
            with fold, no state-changing call waiting over 10 ms while a fold
            runs; with group, each call's median at 10,000 within 1.5 × its
            median at 1; with schedule, the pending requests costing < 50 MB
            and those 2 s ahead firing <= 50 ms late at p99; with cycle, the
            server's CPU <= 40 µs a cycle in process, isolated >= 50 % of in
            process, and the most kept within 1.2 × of none; with soak, the
            server's and its largest worker's resident memory after --soak-opens
            opens within 1.1 × what it was after the warm-up.

        Options:
          --json              Print JSON instead of the table.
          --repetitions N     Timed repetitions of each in-process loop (default 7).
          --min-time MS       Shortest repetition in milliseconds (default 100).
          --iterations N      Operations per repetition, instead of calibrating
                              to --min-time (for profilers such as callgrind).
          --presented N       Keep N other notifications presented (each with its
                              own instance) in every in-process host (default 0).
          --runs N            Timed runs of each one-shot command (default 30).
          --warm-up N         Untimed runs before them (default 3).
          --bundles N         Bundles installed for the one-shot delivery (default 100).
          --cpu N             Pin to CPU N (default 0).
          --no-pin            Leave the CPU affinity alone.
          --only WHAT         Run only in-process, one-shot, server, server-scale, discovery, isolation, warm, memory, fold, group, schedule, soak, cycle, push, or one
                              in-process benchmark: baseline, deliver-reuse,
                              deliver-fresh, deliver-new, respond.
          --discovery-bundles N,N...  Numbers of bundles discovery is measured
                              with (default 100,1000,10000).
          --discovery-runs N  Timed runs of each discovery command (default 10).
          --manifest PATH     Manifests/NoOp.plist, if not found above the executable.
          --server-seconds N  Seconds each server measurement lasts (default 2).
          --memory-notifications N  Notifications delivered and removed each
                              round of the memory benchmark (default 100000).
          --memory-rounds N   Rounds of the memory benchmark (default 2).
          --soak-opens N      Opens the soak measures after its warm-up (default 20000).
          --scale-connections N  Idle connections of the server-scale benchmark (default 10000).
          --scale-waiting N   Responses left waiting in the server-scale benchmark (default 1000).
          --fold-kept N       Notifications kept while folds are measured (default 100000).
          --folds N           Folds the fold measurement spans (default 5).
          --group-rounds N    Timed rounds of the group benchmark at each size (default 500).
          --schedule-pending N  Pending requests of the schedule benchmark (default 100000).
          --cycle-kept N,N...  Notifications kept while the cycles are measured
                              (default 0,10000,100000; 0 must be among them).
          --keep              Keep the temporary directory (extensions, discovery's
                              bundles) and print its path.
          -h, --help          Print this help.

        Profiling:
          perf record -g .build-bench/release/tidings-benchmark --only deliver-reuse
          valgrind --tool=callgrind \\
            --toggle-collect='$s16TidingsBenchmark9LoopTimerV4time*' \\
            .build-bench/release/tidings-benchmark \\
            --only deliver-reuse --iterations 20000 --repetitions 1 --no-pin
          (collects the timed loop only: instructions / 20000 = per operation)
        """
}
