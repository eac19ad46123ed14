package io.lockkit.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two instances of the packaged application ({@code java -jar}, after {@code package}, run by
 * failsafe) against one Redis from the test fixture and one shared directory: concurrent
 * reservations through both lose no update, and the report runs once per tick across both.
 */
// Design notes.
// - The instances start once for the class (a Spring Boot start costs seconds on a loaded machine);
//   the tests use different SKUs, and the report runs throughout.
// - Ticks are judged by the nearest even second, not by milliseconds: a run belongs to the tick it
//   is nearest to, so a run that came up to a second late (or a few ms early) still counts for its
//   own tick. ReportJob's design notes say why its lock excludes a second run of a tick.
// - One lock name for every tick has one way to miss a tick: a run that began more than 0.5 s late
//   (the period less holdAtLeast) still holds the lock when the next tick's calls come. On a loaded
//   machine a JVM's first calls do (one began 560 ms late on JDK 25 at a load average of 16): the
//   count starts a tick later, and a tick without a run passes when, and only when, a late run
//   explains it (lateRunExplainsMissedTick). Nothing excuses two runs in a tick.
@DisplayName("The Spring Boot example as two packaged instances against one Redis")
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
class SpringExampleIT {

    private static final List<String> NAMES = List.of("a", "b");

    /** Reservations per test, half through each instance. */
    private static final int CALLS = 40;

    /** Clients sending them at once. */
    private static final int CLIENTS = 8;

    /** Ticks of the report counted. */
    private static final int TICKS = 6;

    private static final Pattern RESERVATION =
            Pattern.compile("\"reserved\":(\\d+),\"token\":(\\d+),\"instance\":\"(\\w+)\"");

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Path DIR = Paths.get("target", "spring-example-it");

    private static Instances instances;

    private static long firstTick;

    @BeforeAll
    static void startInstances(RedisServer redis) throws IOException {
        assertThat(Instances.app()).as("the packaged application (mvn package)").exists();
        Files.createDirectories(DIR);
        try (var old = Files.list(DIR)) {
            for (Path file : old.toList()) {
                Files.delete(file);
            }
        }
        instances = Instances.start(NAMES, redis.uri(), DIR);
        long lastReady = Journal.of(Journal.read(DIR, NAMES), "ready").stream()
                .mapToLong(Journal.Line::millis)
                .max()
                .orElseThrow();
        // the tick after the first whose whole window (half a period either side) follows both starts: a
        // JVM's first calls of the lock can be slow
        firstTick = Journal.tickOf(lastReady + Journal.PERIOD_MILLIS) + 1;
    }

    @AfterAll
    static void stopInstances() {
        if (instances != null) {
            instances.close();
        }
    }

    /** A reservation's answer: the count after it, its fencing token, the instance that served it. */
    private record Reservation(int reserved, long token, String instance) {}

    @Test
    @DisplayName("40 reservations of one SKU through both instances, 8 at a time, under @Locked: none lost, each"
            + " under a higher token than the one before")
    void concurrentReservationsThroughBothInstancesLoseNoUpdate(RedisServer redis) throws Exception {
        List<Reservation> answers = reserveConcurrently("tea", "reservations");

        assertThat(answers.stream().map(Reservation::instance).distinct())
                .as("instances that served")
                .containsExactlyInAnyOrderElementsOf(NAMES);
        assertThat(answers.stream().map(Reservation::reserved).sorted())
                .as("the counts the reservations left: each one more than the one before")
                .containsExactlyElementsOf(
                        IntStream.rangeClosed(1, CALLS).boxed().toList());
        List<Reservation> inOrder = answers.stream()
                .sorted(Comparator.comparingInt(Reservation::reserved))
                .toList();
        for (int i = 1; i < inOrder.size(); i++) {
            assertThat(inOrder.get(i).token())
                    .as("token of the reservation that left %d", inOrder.get(i).reserved())
                    .isGreaterThan(inOrder.get(i - 1).token());
        }
        for (String name : NAMES) {
            assertThat(get(instances.url(name) + "/stock/tea"))
                    .as("count read through %s", name)
                    .isEqualTo("40");
        }
        assertThat((Long) redis.command("DBSIZE"))
                .as("keys in the fixture's Redis")
                .isPositive();
    }

    @Test
    @DisplayName("the negative control: the same reservations without the lock lose updates")
    void reservationsWithoutTheLockLoseUpdates() throws Exception {
        List<Reservation> answers = reserveConcurrently("cocoa", "unlocked-reservations");

        int count = Integer.parseInt(get(instances.url("a") + "/stock/cocoa"));
        System.out.printf(
                "SpringExampleIT: without the lock, %d reservations left a count of %d (%d distinct answers)%n",
                CALLS,
                count,
                answers.stream().map(Reservation::reserved).distinct().count());
        assertThat(count).as("the count after %d unlocked reservations", CALLS).isLessThan(CALLS);
    }

    @Test
    @DisplayName("the report, scheduled every 2 s on both instances under @Locked(\"report\", SKIP, holdAtLeast"
            + " 1.5 s), over 6 ticks: never two runs in a tick, none missed but after a run 0.5 s late, tokens"
            + " increasing")
    void reportRunsOncePerTickAcrossBothInstances() {
        long lastTick = firstTick + TICKS - 1;
        // every instance has called the report of the tick after the last one counted: the counted ones are over
        await().atMost(Duration.ofSeconds(TICKS * 2 + 60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    assertThat(instances.allAlive()).as("both instances run").isTrue();
                    return Journal.of(Journal.read(DIR, NAMES), "call").stream()
                                    .filter(c -> c.tick() > lastTick)
                                    .map(Journal.Line::instance)
                                    .distinct()
                                    .count()
                            == NAMES.size();
                });
        List<Journal.Line> lines = Journal.read(DIR, NAMES);
        List<Journal.Line> runs = Journal.of(lines, "run");
        // from the tick before the first counted one to the one after the last: a late run there may hold the
        // lock over a counted tick, or be a counted tick's own run come more than a second late
        Map<Long, List<Journal.Line>> runsByTick = byTick(runs, firstTick - 1, lastTick + 1);
        Map<Long, List<Journal.Line>> callsByTick = byTick(Journal.of(lines, "call"), firstTick, lastTick);
        System.out.printf(
                "SpringExampleIT: ticks %d to %d (instance@ms after the tick), runs %s, calls (the unlocked twin) %s%n",
                firstTick, lastTick, runsByTick, callsByTick);

        for (long tick = firstTick; tick <= lastTick; tick++) {
            List<Journal.Line> inTick = runsByTick.get(tick);
            assertThat(inTick).as("runs of tick %d, of %s", tick, runsByTick).hasSizeLessThanOrEqualTo(1);
            if (inTick.isEmpty()) {
                assertThat(lateRunExplainsMissedTick(runsByTick.get(tick - 1), runsByTick.get(tick + 1)))
                        .as(
                                "tick %d has no run, though the run before it was on time and the one after it"
                                        + " is the next tick's own, of %s",
                                tick, runsByTick)
                        .isTrue();
            }
        }
        for (int i = 1; i < runs.size(); i++) {
            assertThat(runs.get(i).value())
                    .as("token of run %s, after %s", runs.get(i), runs.get(i - 1))
                    .isGreaterThan(runs.get(i - 1).value());
        }
        assertThat(runs).allSatisfy(run -> assertThat(run.value()).isPositive());
        assertThat(callsByTick.values().stream().filter(c -> c.size() == NAMES.size()))
                .as("ticks in which both instances called the unlocked twin, of %s", callsByTick)
                .hasSizeGreaterThan(TICKS / 2);
    }

    /**
     * Whether a tick without a run is one that the lock's design allows to be missed: the run of the
     * tick before began more than 0.5 s (the period less holdAtLeast) after its tick, so its hold
     * covered this tick's calls (400 ms: a run's time is taken after it has the lock); or this tick's
     * run came more than a second late and counts for the next tick, whose calls then found it held.
     */
    private static boolean lateRunExplainsMissedTick(List<Journal.Line> before, List<Journal.Line> after) {
        return (before.size() == 1 && before.get(0).lateMillis() > 400)
                || (after.size() == 1 && after.get(0).lateMillis() < -400);
    }

    /** The lines of ticks {@code first} to {@code last}, by tick. */
    private static Map<Long, List<Journal.Line>> byTick(List<Journal.Line> lines, long first, long last) {
        Map<Long, List<Journal.Line>> byTick = new TreeMap<>();
        for (long t = first; t <= last; t++) {
            byTick.put(t, new ArrayList<>());
        }
        for (Journal.Line line : lines) {
            List<Journal.Line> tick = byTick.get(line.tick());
            if (tick != null) {
                tick.add(line);
            }
        }
        return byTick;
    }

    /** {@link #CALLS} POSTs of one unit of {@code sku} to {@code path}, alternating between the instances. */
    private static List<Reservation> reserveConcurrently(String sku, String path) throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<Reservation>> calls = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                URI uri = URI.create(instances.url(NAMES.get(i % NAMES.size())) + "/stock/" + sku + "/" + path);
                calls.add(clients.submit(() -> post(http, uri)));
            }
            List<Reservation> answers = new ArrayList<>();
            for (Future<Reservation> call : calls) {
                answers.add(call.get(90, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            clients.shutdownNow();
        }
    }

    private static Reservation post(HttpClient http, URI uri) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(uri)
                        .timeout(Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as("POST %s: %s", uri, response.body())
                .isEqualTo(200);
        Matcher m = RESERVATION.matcher(response.body());
        assertThat(m.find()).as("a reservation in %s", response.body()).isTrue();
        return new Reservation(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), m.group(3));
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s: %s", url, response.body()).isEqualTo(200);
        return response.body();
    }
}
