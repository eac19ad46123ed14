package io.lockkit.testkit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

class VerifyKitsTmpTest {
    @Test
    void run() {
        String only = System.getProperty("kits", "");
        List<Class<? extends LockContractTest>> kits = List.of(
                BrokenHoldKits.RenewsWhoeverHoldsKit.class,
                BrokenHoldKits.BatchRenewalLosesNothingKit.class,
                BrokenHoldKits.ReleasesByClientKit.class,
                BrokenHoldKits.OwnersByPrefixKit.class,
                BrokenHoldKits.SixteenBitHoldCountsKit.class,
                BrokenHoldKits.ThirtyTwoBitLeasesKit.class,
                BrokenHoldKits.HourLeasesKit.class,
                BrokenHoldKits.RenewClearsInterruptKit.class,
                BrokenHoldKits.TokensPerClientKit.class,
                BrokenNameKits.NormalizesNamesKit.class,
                BrokenNameKits.Utf8ByteColumnKit.class,
                BrokenNameKits.CaseInsensitivePrefixKit.class,
                BrokenNameKits.ListsLapsedLocksKit.class,
                BrokenNameKits.InspectsLatestContenderKit.class,
                BrokenWakeUpKits.ZeroRetryHintKit.class,
                BrokenWakeUpKits.WakesEveryWaiterKit.class,
                BrokenWakeUpKits.SubscriptionOutlivesCloseKit.class,
                BrokenWakeUpKits.ForceReleaseWakesNobodyKit.class,
                BrokenWakeUpKits.IgnoresAbandonKit.class,
                BrokenWakeUpKits.WakeUpsByPrefixKit.class,
                BrokenHoldKits.MillisecondLeasesKit.class,
                BrokenHoldKits.WholeSecondLeasesKit.class,
                BrokenHoldKits.CapabilitiesGoneOnCloseKit.class,
                BrokenHoldKits.AbandonReleasesAnyHoldKit.class,
                BrokenWakeUpKits.ForceReleaseSparesHandOversKit.class,
                BrokenWakeUpKits.LateSubscriptionKit.class,
                BrokenNameKits.OffsetPagingKit.class);
        StringBuilder report = new StringBuilder();
        for (Class<? extends LockContractTest> kit : kits) {
            if (!only.isEmpty() && !List.of(only.split(",")).contains(kit.getSimpleName())) {
                continue;
            }
            long start = System.nanoTime();
            Events tests = EngineTestKit.engine("junit-jupiter")
                    .selectors(selectClass(kit))
                    .execute()
                    .testEvents();
            String failed = tests.failed().stream()
                    .map(e -> e.getTestDescriptor()
                                    .getUniqueId()
                                    .toString()
                                    .replaceAll(".*\\[nested-class:([^\\]]*)\\]/\\[method:([^(]*).*", "$1.$2")
                            + " <- "
                            + e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                                    .flatMap(r -> r.getThrowable())
                                    .map(t -> String.valueOf(t.getMessage()).replace('\n', ' '))
                                    .orElse("")
                                    .substring(0, 0))
                    .collect(Collectors.joining("; "));
            String line = kit.getSimpleName() + ": started " + tests.started().count() + ", failed "
                    + tests.failed().count() + ", skipped " + tests.skipped().count() + " in "
                    + (System.nanoTime() - start) / 1_000_000 + " ms " + failed;
            System.out.println("VERIFY " + line);
            report.append(line).append('\n');
        }
        System.out.println(report);
    }
}
