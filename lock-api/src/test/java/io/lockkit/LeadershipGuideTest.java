package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The snippets of {@code docs/leadership.md}, compiled and run: each block between
 * {@code // guide:<name>-begin} and {@code // guide:<name>-end} here is copied into the page (without
 * its indentation), and {@link #thePageShowsTheseSnippets} checks that it still is.
 */
class LeadershipGuideTest {

    private final List<String> log = new CopyOnWriteArrayList<>();

    private void log(String line) {
        log.add(line);
    }

    @Test
    @DisplayName("lead, step down and close, as the page's first snippet does")
    void leadStepDownClose() throws Exception {
        try (DistributedLockFactory locks = DistributedLockFactory.create(new LocalLockProvider())) {
            // guide:lead-begin
            Leadership leadership = locks.leadership(
                    "billing",
                    LeadershipOptions.builder()
                            .lease(Duration.ofSeconds(10)) // a dead leader is replaced within about this long
                            .onElected(term -> log("leading, term " + term.fencingToken()))
                            .onRevoked((term, reason) -> log("no longer leading: " + reason))
                            .build());
            leadership.start(); // campaigns in the background from now on

            if (leadership.awaitTerm(Duration.ofSeconds(30)).isPresent()) {
                leadership.stepDown(); // onRevoked(STEPPED_DOWN), then the lock goes to another instance
            }
            leadership.close(); // at shutdown: stops campaigning (closing the factory does it too)
            // guide:lead-end
        }
        assertThat(log).hasSize(2);
        assertThat(log.get(0)).startsWith("leading, term ");
        assertThat(log.get(1)).isEqualTo("no longer leading: STEPPED_DOWN");
    }

    /** Stands for the protected resource: it refuses a write with an older term than the newest it has seen. */
    static final class Ledger {
        private long newestTerm;
        final List<String> charged = new CopyOnWriteArrayList<>();

        synchronized void charge(String invoice, long term) {
            if (term < newestTerm) {
                throw new IllegalStateException("a write of term " + term + " after term " + newestTerm);
            }
            newestTerm = term;
            charged.add(invoice + "@" + term);
        }
    }

    /** Leader-only work: the due invoices, charged by the leader of the moment. */
    static final class Billing {
        private final Ledger ledger;
        private final List<String> due;

        Billing(Ledger ledger, List<String> due) {
            this.ledger = ledger;
            this.due = due;
        }

        List<String> dueInvoices() {
            return due;
        }

        // guide:work-begin
        void runOnce(Term term) {
            for (String invoice : dueInvoices()) {
                if (!term.isValid()) {
                    return; // deposed (or paused past the lease): stop before the next step
                }
                ledger.charge(invoice, term.fencingToken()); // the ledger refuses terms older than its newest
            }
        }
        // guide:work-end
    }

    // guide:scheduled-begin
    /** Runs billing every period on whichever instance leads, and only there. */
    static final class LeaderOnlyBilling implements AutoCloseable {
        private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        private final Leadership leadership;
        private @Nullable ScheduledFuture<?> job; // guarded by this

        LeaderOnlyBilling(DistributedLockFactory locks, Billing billing, Duration period) {
            leadership = locks.leadership(
                    "billing",
                    LeadershipOptions.builder()
                            .lease(Duration.ofSeconds(10))
                            .onElected(term -> start(billing, term, period))
                            .onRevoked((term, reason) -> stop())
                            .build());
            leadership.start();
        }

        private synchronized void start(Billing billing, Term term, Duration period) {
            job = scheduler.scheduleWithFixedDelay(
                    () -> billing.runOnce(term), 0, period.toMillis(), TimeUnit.MILLISECONDS);
        }

        private synchronized void stop() {
            if (job != null) {
                job.cancel(true); // interrupts a run in progress; runOnce also checks the term
                job = null;
            }
        }

        @Override
        public void close() {
            leadership.close(); // onRevoked stops the job before the lock is released
            scheduler.shutdownNow();
        }
    }
    // guide:scheduled-end

    @Test
    @DisplayName("leader-only scheduled work runs on one of two instances, and on the other once the first closes")
    void leaderOnlyScheduledWork() throws Exception {
        LocalLockProvider backend = new LocalLockProvider();
        Ledger ledger = new Ledger();
        Billing billing = new Billing(ledger, List.of("inv-1", "inv-2"));
        try (DistributedLockFactory a = DistributedLockFactory.create(backend.newClient());
                DistributedLockFactory b = DistributedLockFactory.create(backend.newClient());
                LeaderOnlyBilling first = new LeaderOnlyBilling(a, billing, Duration.ofMillis(20));
                LeaderOnlyBilling second = new LeaderOnlyBilling(b, billing, Duration.ofMillis(20))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> ledger.charged.size() >= 4);
            List<Long> terms = terms(ledger);
            assertThat(terms).as("one leader's term so far").containsOnly(terms.get(0));
            LeaderOnlyBilling leader = first.leadership.isLeader() ? first : second;
            leader.close();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> terms(ledger).stream().anyMatch(t -> t > terms.get(0)));
            assertThat(terms(ledger))
                    .as("terms in the order the ledger saw them")
                    .isSorted();
        }
    }

    private static List<Long> terms(Ledger ledger) {
        List<Long> terms = new ArrayList<>();
        for (String c : ledger.charged) {
            terms.add(Long.parseLong(c.substring(c.indexOf('@') + 1)));
        }
        return terms;
    }

    @Test
    @DisplayName("docs/leadership.md shows every snippet of this file as it is here")
    void thePageShowsTheseSnippets() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "leadership.md"));
        String source = Files.readString(Path.of("src", "test", "java", "io", "lockkit", "LeadershipGuideTest.java"));
        Matcher m = Pattern.compile("// guide:([a-z]+)-begin\\n(.*?)\\n\\s*// guide:\\1-end", Pattern.DOTALL)
                .matcher(source);
        int found = 0;
        while (m.find()) {
            found++;
            assertThat(page)
                    .as("snippet '%s' in docs/leadership.md", m.group(1))
                    .contains(dedent(m.group(2)));
        }
        assertThat(found).as("snippets in this file").isEqualTo(3);
    }

    /** The lines of {@code block} without the indentation they share. */
    private static String dedent(String block) {
        List<String> lines = block.lines().toList();
        int indent = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            b.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
        }
        return b.toString().stripTrailing();
    }
}
