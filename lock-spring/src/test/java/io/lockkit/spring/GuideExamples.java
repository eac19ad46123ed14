package io.lockkit.spring;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Mono;

/** The Spring page's snippets (docs/spring.md), compiled with the module's tests. */
final class GuideExamples {

    private GuideExamples() {}

    // spring-service:begin
    public static class Accounts {
        private final JdbcTemplate jdbc;

        public Accounts(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Locked("account-{0}")
        @Transactional
        public void deposit(String account, int amount) {
            jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, account);
        }
    }
    // spring-service:end

    public static class Reports {
        // spring-scheduled:begin
        @Scheduled(cron = "0 0 2 * * *")
        @Locked(value = "nightly-report", whenBusy = WhenBusy.SKIP, waitTime = 0, holdAtLeast = 60)
        public void nightlyReport() {
            long token = CurrentLock.handle().orElseThrow().fencingToken(); // for what the job writes
            System.out.println("report under token " + token);
        }
        // spring-scheduled:end

        // spring-async:begin
        @Locked("export-{0}")
        public CompletionStage<String> export(String id) {
            return CompletableFuture.supplyAsync(() -> "exported " + id);
        }

        @Locked("render-{0}")
        public Mono<String> render(String id) {
            return Mono.fromSupplier(() -> "rendered " + id);
        }
        // spring-async:end
    }

    // spring-leader:begin
    public static class Leader {
        @EventListener
        public void elected(LeadershipGrantedEvent event) {
            if (event.name().equals("reports")) {
                System.out.println("leading reports in term " + event.fencingToken());
            }
        }

        @EventListener
        public void deposed(LeadershipRevokedEvent event) {
            System.out.println("stopped leading " + event.name() + ": " + event.reason());
        }
    }
    // spring-leader:end

    // spring-factory:begin
    public static class Shipping {
        private final DistributedLockFactory locks;

        public Shipping(DistributedLockFactory locks) {
            this.locks = locks;
        }

        public void ship(String order) throws InterruptedException {
            try (LockHandle hold = locks.acquire("order-" + order)) {
                System.out.println("shipping " + order + " under token " + hold.fencingToken());
            }
        }
    }
    // spring-factory:end
}
