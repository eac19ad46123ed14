package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedMethod;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LocalLockProvider;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The kit is only as good as the broken providers it rejects: each provider here breaks one
 * guarantee, and the kit group that covers it must fail.
 *
 * <p>Its methods run concurrently where the module enables parallel execution (lock-testkit's
 * surefire configuration): each makes its own kits, each kit its own in-JVM backend, and nothing
 * here is static and mutable. The {@code EngineTestKit} launches inside run their groups one test
 * at a time, as a provider's own build would.
 */
@Execution(ExecutionMode.CONCURRENT)
class BrokenProvidersTest {

    @Test
    @DisplayName("a provider that always grants fails mutual exclusion")
    void alwaysGrantingProviderIsRejected() {
        assertRejected(AlwaysGrantsKit.class, LockContractTest.MutualExclusion.class);
    }

    @Test
    @DisplayName("a provider without reentrancy fails the reentrancy group")
    void providerWithoutReentrancyIsRejected() {
        assertRejected(NoReentrancyKit.class, LockContractTest.Reentrancy.class);
    }

    @Test
    @DisplayName("a provider whose leases never expire fails the expiry group")
    void providerWithoutExpiryIsRejected() {
        assertRejected(NeverExpiresKit.class, LockContractTest.Expiry.class);
    }

    @Test
    @DisplayName("a provider that lets a non-owner release fails the expiry group")
    void providerReleasingForNonOwnersIsRejected() {
        assertRejected(NonOwnerReleaseKit.class, LockContractTest.Expiry.class);
    }

    @Test
    @DisplayName("a provider whose tokens go backwards fails the fencing group")
    void providerWithBackwardTokensIsRejected() {
        assertRejected(BackwardTokensKit.class, LockContractTest.Fencing.class);
    }

    @Test
    @DisplayName("a provider that waits for a busy lock inside tryAcquire fails the asynchronous acquisition group")
    void providerWaitingInsideTryAcquireIsRejected() {
        assertRejectedBy(WaitsInsideTryAcquireKit.class, LockContractTest.Async.class, "asyncWaitsKeepNoThread");
    }

    @Test
    @DisplayName("a queueing provider that ignores abandons fails the cancelled-async-wait test")
    void providerIgnoringAbandonsFailsTheAsyncCancel() {
        assertRejectedBy(
                BrokenQueueKits.IgnoresAbandonKit.class,
                LockContractTest.Async.class,
                "aCancelledAsyncWaitLeavesNoHold");
    }

    @Test
    @DisplayName("a provider that ignores wait timeouts fails the waiting group")
    void providerIgnoringWaitTimeoutsIsRejected() {
        assertRejected(IgnoresWaitTimeoutsKit.class, LockContractTest.Waiting.class);
    }

    @Test
    @DisplayName(
            "a provider whose release grants the lock to a local waiter without passing the grant on fails the hand-over group")
    void providerDroppingItsGrantsIsRejected() {
        assertRejected(DropsGrantsKit.class, LockContractTest.HandOver.class);
    }

    @Test
    @DisplayName("a provider whose leases run 10 times longer than asked fails the lease-length test")
    void providerWithTenfoldLeasesIsRejected() {
        assertRejectedBy(TenfoldLeaseKit.class, LockContractTest.Expiry.class, "lapsedLeaseEndsOnTime");
    }

    @Test
    @DisplayName("a provider whose renewals set 10 times the lease asked for fails the renewal-length test")
    void providerWithTenfoldRenewalsIsRejected() {
        assertRejectedBy(TenfoldRenewalKit.class, LockContractTest.Expiry.class, "renewalSetsTheLengthAskedFor");
    }

    @Test
    @DisplayName("a provider whose reentrant acquisition shortens the lease fails the reentrant-lease test")
    void providerShorteningLeasesOnReentryIsRejected() {
        assertRejectedBy(
                ShortensOnReentryKit.class, LockContractTest.Expiry.class, "reentrantAcquisitionNeverShortensTheLease");
    }

    @Test
    @DisplayName("a provider whose reentrant acquisition ignores a longer lease fails the lengthening test")
    void providerIgnoringLongerLeasesOnReentryIsRejected() {
        assertRejectedBy(
                KeepsLeaseOnReentryKit.class,
                LockContractTest.Expiry.class,
                "reentrantAcquisitionWithALongerLeaseLengthensIt");
    }

    @Test
    @DisplayName("a provider whose retry hints are 10 times too long fails the lapsed-lock waiter test")
    void providerWithTenfoldRetryHintsIsRejected() {
        assertRejectedBy(
                TenfoldRetryKit.class, LockContractTest.Waiting.class, "waiterTakesALapsedLockSoonAfterTheLease");
    }

    @Test
    @DisplayName("a provider whose inspect answers stale hold counts and leases fails both inspection tests")
    void providerWithStaleInspectionIsRejected() {
        assertRejectedBy(
                StaleInspectionKit.class, LockContractTest.Inspection.class, "inspectionFollowsReentryAndRelease");
        assertRejectedBy(
                StaleInspectionKit.class, LockContractTest.Inspection.class, "inspectionFollowsTheLeaseAndItsLapse");
    }

    @Test
    @DisplayName("a provider whose inspect answers stale hold counts fails the factory's inspect test")
    void providerWithStaleHoldCountsIsRejectedByTheFactoryInspectTest() {
        assertRejectedBy(
                StaleInspectionKit.class,
                LockContractTest.OperatorInspection.class,
                "inspectShowsHolderCountTokenAndLease");
    }

    @Test
    @DisplayName("a provider whose inspect answers the token before the holder's fails both token checks of inspect")
    void providerWithStaleInspectedTokensIsRejected() {
        assertRejectedBy(
                StaleTokenInspectionKit.class,
                LockContractTest.OperatorInspection.class,
                "inspectShowsHolderCountTokenAndLease");
        assertRejectedBy(
                StaleTokenInspectionKit.class, LockContractTest.OperatorInspection.class, "inspectTellsHoldersApart");
    }

    @Test
    @DisplayName("a provider whose listing drops the last, partial page fails the paging test")
    void providerDroppingTheLastPageIsRejected() {
        assertRejectedBy(DropsLastPageKit.class, LockContractTest.Listing.class, "listingSpansPages");
    }

    @Test
    @DisplayName(
            "a provider that matches a prefix as a pattern (?, _ one character; *, % any) fails the literal-prefix test")
    void providerMatchingPrefixesAsPatternsIsRejected() {
        assertRejectedBy(PatternPrefixKit.class, LockContractTest.Listing.class, "prefixIsLiteral");
    }

    @Test
    @DisplayName("a provider that truncates long names fails the long-names test")
    void providerTruncatingNamesIsRejected() {
        assertRejectedBy(
                TruncatesNamesKit.class,
                LockContractTest.Independence.class,
                "longNamesDifferingInTheLastCharacterAreDifferentLocks");
    }

    @Test
    @DisplayName("a provider whose inspect blocks the client's other calls fails the inspection test")
    void providerWithBlockingInspectionIsRejected() {
        assertRejectedBy(
                BlockingInspectionKit.class, LockContractTest.Inspection.class, "inspectionDoesNotBlockTheClient");
    }

    @Test
    @DisplayName("a provider that fails a wait because of an interrupt fails the interrupt-on-entry test")
    void providerFailingOnInterruptsIsRejected() {
        assertRejectedBy(
                FailsWhenInterruptedKit.class,
                LockContractTest.Interrupts.class,
                "lockWithTheInterruptSetWaitsAndKeepsTheFlag");
    }

    @Test
    @DisplayName("a provider that clears the interrupt status fails the interrupt-on-entry test")
    void providerSwallowingInterruptsIsRejected() {
        assertRejectedBy(
                SwallowsInterruptsKit.class,
                LockContractTest.Interrupts.class,
                "lockWithTheInterruptSetWaitsAndKeepsTheFlag");
    }

    @Test
    @DisplayName(
            "a provider whose close frees every client's holds fails the closing test (the kit reads capabilities without closing a provider mid-test)")
    void providerFreeingAllHoldsOnCloseIsRejected() {
        assertRejectedBy(
                CloseFreesEveryoneKit.class,
                LockContractTest.Closing.class,
                "closingOneClientLeavesAnotherClientsHoldsAlone");
    }

    @Test
    @DisplayName("a provider that throws IllegalStateException once closed fails the closed-provider test")
    void providerThrowingIllegalStateWhenClosedIsRejected() {
        assertRejectedBy(
                IllegalStateWhenClosedKit.class,
                LockContractTest.ClosedProvider.class,
                "everyCallAfterCloseThrowsLockException");
    }

    @Test
    @DisplayName("a provider that keeps answering once closed fails the closed-provider test")
    void providerAnsweringWhenClosedIsRejected() {
        assertRejectedBy(
                AnswersWhenClosedKit.class,
                LockContractTest.ClosedProvider.class,
                "everyCallAfterCloseThrowsLockException");
    }

    @Test
    @DisplayName("a provider that hands a lock to a waiter that gave up fails the abandon test")
    void providerIgnoringAbandonIsRejected() {
        assertRejectedBy(
                IgnoresAbandonKit.class,
                LockContractTest.HandOver.class,
                "abandonedWaiterOfTheHoldersClientDoesNotKeepTheLock");
    }

    @Test
    @DisplayName("a provider that lets a released lock be taken again with the released token fails the terms test")
    void providerReusingReleasedTokensIsRejectedByLeadership() {
        assertRejectedBy(ReusesReleasedTokenKit.class, LockContractTest.Leadership.class, "termsStrictlyIncrease");
    }

    @Test
    @DisplayName("a provider whose renewals never report a lost hold fails the leadership-loss test")
    void providerHidingLossesIsRejectedByLeadership() {
        assertRejectedBy(
                HidesLossesKit.class, LockContractTest.Leadership.class, "leaderOfALostHoldIsToldAtItsNextRenewal");
    }

    @Test
    @DisplayName("a provider whose leases end at half the time asked fails the cut-off leader test (two leaders)")
    void providerWithHalvedLeasesIsRejectedByLeadership() {
        assertRejectedBy(
                HalvedLeaseKit.class, LockContractTest.Leadership.class, "cutOffLeaderIsToldBeforeAnotherIsElected");
    }

    @Test
    @DisplayName("a provider whose renewals set 10 times the lease keeps a cut-off leader's successor waiting")
    void providerWithTenfoldRenewalsIsRejectedByLeadership() {
        assertRejectedBy(
                TenfoldRenewalKit.class, LockContractTest.Leadership.class, "cutOffLeaderIsToldBeforeAnotherIsElected");
    }

    @Test
    @DisplayName("a provider whose releases wake no waiter fails the prompt hand-over test")
    void providerWakingNobodyIsRejectedByLeadership() {
        assertRejectedBy(WakesNobodyKit.class, LockContractTest.Leadership.class, "stepDownAndCloseHandOverAtOnce");
    }

    @Test
    @DisplayName("the honest provider passes the same groups")
    void honestProviderPassesTheSameGroups() {
        for (Class<?> group : List.of(
                LockContractTest.MutualExclusion.class,
                LockContractTest.Reentrancy.class,
                LockContractTest.Expiry.class,
                LockContractTest.Fencing.class,
                LockContractTest.HandOver.class,
                LockContractTest.Interrupts.class,
                LockContractTest.Inspection.class,
                LockContractTest.ClosedProvider.class,
                LockContractTest.Leadership.class)) {
            Events tests = run(HonestKit.class, group);
            assertThat(tests.failed().count())
                    .as("failures of the honest provider in %s", group.getSimpleName())
                    .isZero();
            assertThat(tests.succeeded().count()).isPositive();
        }
    }

    // ---- calls that never return (BrokenCallKits): each hung the whole run before; now a named failure ----

    @Test
    @DisplayName(
            "a provider whose inspect keeps the name locked fails the inspection test in bounded time, naming the release it holds up")
    void providerKeepingTheNameLockedAfterInspectIsRejected() {
        assertRejectedWithin(
                BrokenCallKits.InspectKeepsTheNameLockedKit.class,
                LockContractTest.Inspection.class,
                "inspectionDoesNotBlockTheClient",
                "the release of a lock inspected on another thread did not return within 10 s",
                "LockProvider.release");
    }

    @Test
    @DisplayName(
            "a provider whose inspect keeps the name locked ends the whole inspection group's run, with named failures")
    void providerKeepingTheNameLockedEndsTheInspectionGroup() {
        Events tests = endsWithin(
                RUN_BOUND,
                () -> run(BrokenCallKits.InspectKeepsTheNameLockedKit.class, LockContractTest.Inspection.class));
        assertThat(tests.failed().count()).as("failed inspection tests").isPositive();
        assertThat(failureTexts(tests))
                .as("the failures, suppressed ones included")
                .anySatisfy(text -> assertThat(text).contains("did not return within", "LockProvider.release"));
    }

    @Test
    @DisplayName("a provider whose close never returns fails the test at the clean-up after it, naming the close")
    void providerWhoseCloseNeverReturnsIsRejected() {
        assertRejectedWithin(
                BrokenCallKits.CloseNeverReturnsKit.class,
                LockContractTest.Fencing.class,
                "tokensIncreaseAcrossHolders",
                "closing the client",
                "did not return within 30 s; it waits in LockProvider.close");
    }

    @Test
    @DisplayName(
            "a provider whose creation never returns fails a group's capability check before the test, naming newProvider()")
    void providerWhoseCreationNeverReturnsIsRejected() {
        assertRejectedWithin(
                BrokenCallKits.NewProviderNeverReturnsKit.class,
                LockContractTest.Inspection.class,
                "inspectionFollowsReentryAndRelease",
                "reading the backend's capabilities",
                "did not return within 30 s; it waits in",
                ".newProvider()");
    }

    // ---- tokens past 2^31 and 2^53 (BrokenTokenKits): each passed the whole kit before startTokensAt ----

    @Test
    @DisplayName("a provider that keeps tokens in a 32-bit int fails the fencing tests past 2^31")
    void providerWithThirtyTwoBitTokensIsRejected() {
        for (String test : List.of(
                "tokensIncreaseAcrossTheIntAndDoubleBoundaries",
                "tokensIncreaseAcrossForceReleasesPastTheBoundaries",
                "tokensIncreaseAcrossExpiryPastTwoToThe31")) {
            assertRejectedBy(BrokenTokenKits.IntTokensKit.class, LockContractTest.Fencing.class, test);
        }
    }

    @Test
    @DisplayName("a provider that passes tokens through a double fails the fencing tests past 2^53")
    void providerWithDoubleTokensIsRejected() {
        for (String test : List.of(
                "tokensIncreaseAcrossTheIntAndDoubleBoundaries",
                "tokenPastTwoToThe53IsExactEverywhere",
                "tokensIncreaseAcrossForceReleasesPastTheBoundaries")) {
            assertRejectedBy(BrokenTokenKits.DoubleTokensKit.class, LockContractTest.Fencing.class, test);
        }
    }

    @Test
    @DisplayName("a provider whose inspect and listing read tokens through a double fails the exact-token test")
    void providerInspectingTokensThroughADoubleIsRejected() {
        assertRejectedBy(
                BrokenTokenKits.InspectsTokensThroughADoubleKit.class,
                LockContractTest.Fencing.class,
                "tokenPastTwoToThe53IsExactEverywhere");
    }

    // ---- faults the kit once let through (BrokenHoldKits, BrokenNameKits, BrokenWakeUpKits) ----

    @Test
    @DisplayName("a provider whose renew extends the lock for whoever holds it fails the taken-over renewal test")
    void providerRenewingWhoeverHoldsIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.RenewsWhoeverHoldsKit.class,
                LockContractTest.Renewal.class,
                "renewalOfAHoldTakenOverIsReportedLost");
    }

    @Test
    @DisplayName("a provider whose batch renewals report no losses fails the batch renewal test")
    void providerLosingNothingInBatchRenewalsIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.BatchRenewalLosesNothingKit.class,
                LockContractTest.Renewal.class,
                "batchRenewalReportsExactlyTheLostHolds");
    }

    @Test
    @DisplayName("a provider whose release compares owners by their client part fails the same-client release test")
    void providerReleasingByClientIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.ReleasesByClientKit.class,
                LockContractTest.Ownership.class,
                "releaseOfALapsedHoldLeavesTheSameClientsNextHolderAlone");
    }

    @Test
    @DisplayName("a provider that compares owner ids by prefix fails the whole-owner-id test")
    void providerComparingOwnersByPrefixIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.OwnersByPrefixKit.class, LockContractTest.Ownership.class, "ownerIdsAreToldApartWhole");
    }

    @Test
    @DisplayName("a provider that keeps hold counts in 16 bits fails the 32,768-holds test")
    void providerWithSixteenBitHoldCountsIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.SixteenBitHoldCountsKit.class,
                LockContractTest.Reentrancy.class,
                "holdCountsGoPast16Bits");
    }

    @Test
    @DisplayName("a provider that keeps leases in 32-bit milliseconds fails the long-lease test")
    void providerWithThirtyTwoBitLeasesIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.ThirtyTwoBitLeasesKit.class,
                LockContractTest.Expiry.class,
                "longLeasesLastAsLongAsAsked");
    }

    @Test
    @DisplayName("a provider that clamps leases to an hour fails the long-lease test")
    void providerClampingLeasesIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.HourLeasesKit.class, LockContractTest.Expiry.class, "longLeasesLastAsLongAsAsked");
    }

    @Test
    @DisplayName("a provider whose renew clears the interrupt status fails the interrupted-calls test")
    void providerClearingInterruptsInRenewIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.RenewClearsInterruptKit.class,
                LockContractTest.Interrupts.class,
                "callsThatDoNotWaitKeepTheInterruptStatus");
    }

    @Test
    @DisplayName("a provider that normalizes names (NFC) fails the equivalent-names test")
    void providerNormalizingNamesIsRejected() {
        assertRejectedBy(
                BrokenNameKits.NormalizesNamesKit.class,
                LockContractTest.Independence.class,
                "equivalentUnicodeNamesAreDifferentLocks");
    }

    @Test
    @DisplayName("a provider that keeps names in 8,192 bytes of UTF-8 fails the longest-names test")
    void providerCuttingNamesAtEightKilobytesIsRejected() {
        assertRejectedBy(
                BrokenNameKits.Utf8ByteColumnKit.class,
                LockContractTest.Independence.class,
                "longestNamesDifferingInTheLastCharacterAreDifferentLocks");
    }

    @Test
    @DisplayName("a provider whose listing matches prefixes case-insensitively fails the exact-prefix test")
    void providerListingCaseInsensitivelyIsRejected() {
        assertRejectedBy(
                BrokenNameKits.CaseInsensitivePrefixKit.class, LockContractTest.Listing.class, "prefixMatchesExactly");
    }

    @Test
    @DisplayName("a provider whose listing shows locks that lapsed unseen fails the lapsed-listing test")
    void providerListingLapsedLocksIsRejected() {
        assertRejectedBy(
                BrokenNameKits.ListsLapsedLocksKit.class,
                LockContractTest.Listing.class,
                "lockLapsedUnseenIsNotListed");
    }

    @Test
    @DisplayName("a provider whose inspect names the latest contender fails the holder-not-contender test")
    void providerInspectingTheLatestContenderIsRejected() {
        assertRejectedBy(
                BrokenNameKits.InspectsLatestContenderKit.class,
                LockContractTest.OperatorInspection.class,
                "inspectNamesTheHolderNotTheLatestContender");
    }

    @Test
    @DisplayName("a provider whose busy answers say \"try again now\" fails the polling test")
    void providerWithZeroRetryHintsIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.ZeroRetryHintKit.class,
                LockContractTest.Waiting.class,
                "busyAnswersDoNotMakeAWaiterPoll");
    }

    @Test
    @DisplayName("a provider whose release wakes every waiter of a client fails the herd test")
    void providerWakingEveryWaiterIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.WakesEveryWaiterKit.class,
                LockContractTest.WakeUps.class,
                "aReleaseWakesOneWaiterOfAClient");
    }

    @Test
    @DisplayName("a provider whose subscriptions outlive their close fails the subscriptions test")
    void providerKeepingClosedSubscriptionsIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.SubscriptionOutlivesCloseKit.class,
                LockContractTest.WakeUps.class,
                "releasesReachOnlyOpenSubscriptionsOfTheName");
    }

    @Test
    @DisplayName("a provider whose subscriptions hear every name they start with fails the subscriptions test")
    void providerSubscribingByPrefixIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.WakeUpsByPrefixKit.class,
                LockContractTest.WakeUps.class,
                "releasesReachOnlyOpenSubscriptionsOfTheName");
    }

    @Test
    @DisplayName("a provider that cuts leases to whole milliseconds fails the never-valid-once-taken test")
    void providerCuttingLeasesToMillisecondsIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.MillisecondLeasesKit.class,
                LockContractTest.Expiry.class,
                "holdIsNeverValidOnceAnotherClientHasTheLock");
    }

    @Test
    @DisplayName(
            "a provider whose abandon releases the owner's hold from another wait fails the abandon-of-another-wait test")
    void providerAbandoningAnyHoldIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.AbandonReleasesAnyHoldKit.class,
                LockContractTest.HandOver.class,
                "abandonOfAnotherWaitLeavesTheOwnersHoldAlone");
    }

    @Test
    @DisplayName(
            "a provider whose force release spares a lock handed to a waiter fails the force-release hand-over test")
    void providerForceReleasingOnlyHeldLocksIsRejected() {
        assertRejectedBy(
                BrokenQueueKits.ForceReleaseSparesHandOversKit.class,
                LockContractTest.HandOver.class,
                "forceReleaseFreesALockHandedToAWaiter");
    }

    @Test
    @DisplayName("a provider whose subscriptions take effect after subscribe returned fails the just-subscribed test")
    void providerSubscribingLateIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.LateSubscriptionKit.class,
                LockContractTest.WakeUps.class,
                "releaseJustAfterSubscribingIsHeard");
    }

    @Test
    @DisplayName(
            "a provider that drops a name's listeners when the last one's unsubscription completes fails the racing-subscription test")
    void providerDroppingListenersSubscribedWhileUnsubscribingIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.DropsListenersOnUnsubscribedKit.class,
                LockContractTest.WakeUps.class,
                "subscriptionRacingTheLastCloseHearsTheNextRelease");
    }

    @Test
    @DisplayName("a provider whose listing pages by offset fails the held-throughout listing test")
    void providerPagingByOffsetIsRejected() {
        assertRejectedBy(
                BrokenNameKits.OffsetPagingKit.class,
                LockContractTest.Listing.class,
                "lockHeldThroughoutIsListedWhileEarlierOnesGo");
    }

    @Test
    @DisplayName(
            "a provider that matches a renewal batch's answers by lock name fails the two-owners-of-one-name renewal test")
    void providerMatchingRenewalsByNameIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.RenewalsMatchedByNameKit.class,
                LockContractTest.Renewal.class,
                "batchRenewalTellsTwoOwnersOfOneNameApart");
    }

    @Test
    @DisplayName(
            "a queueing provider whose abandon deletes the name's whole queue fails the remaining-waiters test; the same queue with the entry's abandon passes it")
    void providerDroppingTheQueueOnAbandonIsRejected() {
        assertRejectedBy(
                BrokenQueueKits.AbandonDropsTheQueueKit.class,
                LockContractTest.Waiting.class,
                "releaseWakesTheRemainingWaitersAfterOneGaveUp");
        assertPassedBy(
                BrokenQueueKits.QuietQueueingKit.class,
                LockContractTest.Waiting.class,
                "releaseWakesTheRemainingWaitersAfterOneGaveUp");
    }

    @Test
    @DisplayName(
            "a provider that pauses 200 ms and tries once more before a busy answer fails the round-trip test and the 100-async-waits test")
    void providerRetryingOnceInsideTryAcquireIsRejected() {
        assertRejectedBy(
                BrokenAsyncKits.RetriesOnceInsideTryAcquireKit.class,
                LockContractTest.Async.class,
                "aBusyAnswerComesBackInAboutOneRoundTrip");
        assertRejectedBy(
                BrokenAsyncKits.RetriesOnceInsideTryAcquireKit.class,
                LockContractTest.Async.class,
                "asyncWaitsKeepNoThread");
    }

    @Test
    @DisplayName(
            "a provider whose listener lists are made by computeIfAbsent and dropped by computeIfPresent when empty fails the racing-subscription test")
    void providerLosingListenersToTheLastCloseIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.RacyListenersKit.class,
                LockContractTest.WakeUps.class,
                "subscriptionRacingTheLastCloseHearsTheNextRelease");
    }

    @Test
    @DisplayName(
            "a provider whose direct grant holds the lock for a hand-over's claim time, not the waiter's lease, fails the grant test")
    void providerGrantingForTheClaimTimeIsRejected() {
        assertRejectedBy(
                BrokenGrantKits.GrantsForTheClaimTimeKit.class,
                LockContractTest.HandOver.class,
                "aGrantToAWaiterOfTheReleasingClientIsTheWaitersOneHold");
        assertPassedBy(
                BrokenGrantKits.HonestGrantsKit.class,
                LockContractTest.HandOver.class,
                "aGrantToAWaiterOfTheReleasingClientIsTheWaitersOneHold");
    }

    @Test
    @DisplayName("a provider whose granted wait takes its grant again reentrantly fails the grant test")
    void providerRetakingGrantsReentrantlyIsRejected() {
        assertRejectedBy(
                BrokenGrantKits.GrantRetakenReentrantlyKit.class,
                LockContractTest.HandOver.class,
                "aGrantToAWaiterOfTheReleasingClientIsTheWaitersOneHold");
    }

    // ---- faults considered and found covered by tests written for something else ----

    @Test
    @DisplayName("a provider that counts fencing tokens per client fails the token-order test")
    void providerWithTokensPerClientIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.TokensPerClientKit.class, LockContractTest.Fencing.class, "tokensIncreaseAcrossHolders");
    }

    @Test
    @DisplayName("a provider whose force release wakes nobody fails the force-unlock test")
    void providerForceReleasingWithoutWakeUpsIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.ForceReleaseWakesNobodyKit.class,
                LockContractTest.Ownership.class,
                "forceUnlockFreesAndWakes");
    }

    @Test
    @DisplayName("a provider that cuts leases to whole seconds fails the lapsed-lease test")
    void providerCuttingLeasesToSecondsIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.WholeSecondLeasesKit.class,
                LockContractTest.Expiry.class,
                "lapsedLeaseLetsAnotherClientIn");
    }

    @Test
    @DisplayName("a provider that declares no capability once closed fails the closed-provider test")
    void providerLosingCapabilitiesOnCloseIsRejected() {
        assertRejectedBy(
                BrokenHoldKits.CapabilitiesGoneOnCloseKit.class,
                LockContractTest.ClosedProvider.class,
                "everyCallAfterCloseThrowsLockException");
    }

    @Test
    @DisplayName(
            "a provider that ignores the abandon of another client's waiter fails the busy-for-others test (whose waiters give up)")
    void providerIgnoringAnotherClientsAbandonIsRejected() {
        assertRejectedBy(
                BrokenQueueKits.IgnoresAbandonKit.class,
                LockContractTest.MutualExclusion.class,
                "aHeldLockIsBusyForOtherClients");
    }

    @Test
    @DisplayName("a provider whose subscriptions deliver one release and no more fails the every-release test")
    void providerWithOneShotSubscriptionsIsRejected() {
        assertRejectedBy(
                BrokenWakeUpKits.OneShotSubscriptionKit.class,
                LockContractTest.WakeUps.class,
                "anOpenSubscriptionHearsEveryRelease");
    }

    private static void assertRejected(Class<? extends LockContractTest> kit, Class<?> group) {
        Events tests = run(kit, group);
        assertThat(tests.started().count()).as("tests started").isPositive();
        assertThat(tests.failed().count())
                .as(
                        "failed tests of %s in %s; passed: %s",
                        kit.getSimpleName(),
                        group.getSimpleName(),
                        tests.succeeded().stream()
                                .map(e -> e.getTestDescriptor().getDisplayName())
                                .collect(Collectors.toList()))
                .isPositive();
    }

    /** The one kit test {@code method} of {@code group} must fail for {@code kit} (and pass for the honest provider). */
    private static void assertRejectedBy(Class<? extends LockContractTest> kit, Class<?> group, String method) {
        Events tests = EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedMethod(List.of(kit), group, method))
                .execute()
                .testEvents();
        assertThat(tests.started().count()).as("%s started", method).isEqualTo(1);
        assertThat(tests.failed().count())
                .as("%s failed for %s", method, kit.getSimpleName())
                .isEqualTo(1);
        Events honest = EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedMethod(List.of(HonestKit.class), group, method))
                .execute()
                .testEvents();
        assertThat(honest.succeeded().count())
                .as("%s passed for the honest provider", method)
                .isEqualTo(1);
    }

    /** How long a launch of a kit test whose provider leaves calls blocked may take: it must end, not hang. */
    private static final Duration RUN_BOUND = Duration.ofMinutes(4);

    /**
     * Like {@link #assertRejectedBy}, for a provider that leaves a call blocked: the launch must end
     * within {@link #RUN_BOUND}, and the failure (or one suppressed by it) must say each of {@code words}.
     */
    private static void assertRejectedWithin(
            Class<? extends LockContractTest> kit, Class<?> group, String method, String... words) {
        Events tests = endsWithin(
                RUN_BOUND,
                () -> EngineTestKit.engine("junit-jupiter")
                        .selectors(selectNestedMethod(List.of(kit), group, method))
                        .execute()
                        .testEvents());
        assertThat(tests.started().count()).as("%s started", method).isEqualTo(1);
        assertThat(tests.failed().count())
                .as("%s failed for %s", method, kit.getSimpleName())
                .isEqualTo(1);
        assertThat(failureTexts(tests))
                .as("the failure of %s, suppressed ones included", method)
                .anySatisfy(text -> assertThat(text).contains(words));
        Events honest = EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedMethod(List.of(HonestKit.class), group, method))
                .execute()
                .testEvents();
        assertThat(honest.succeeded().count())
                .as("%s passed for the honest provider", method)
                .isEqualTo(1);
    }

    /** Runs {@code launch}, failing when it has not ended within {@code bound}: the run hangs. */
    private static Events endsWithin(Duration bound, java.util.function.Supplier<Events> launch) {
        return assertTimeoutPreemptively(bound, launch::get, () -> "the kit's run had not ended after " + bound);
    }

    /** The messages of every failure of {@code tests} and of the failures each one suppressed. */
    private static List<String> failureTexts(Events tests) {
        return tests.failed().stream()
                .flatMap(e ->
                        e.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable).stream())
                .flatMap(t -> java.util.stream.Stream.concat(
                        java.util.stream.Stream.of(t), java.util.Arrays.stream(t.getSuppressed())))
                .map(String::valueOf)
                .collect(Collectors.toList());
    }

    /** The one kit test {@code method} of {@code group} passes for {@code kit}: the honest counterpart of a broken kit. */
    private static void assertPassedBy(Class<? extends LockContractTest> kit, Class<?> group, String method) {
        Events tests = EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedMethod(List.of(kit), group, method))
                .execute()
                .testEvents();
        assertThat(tests.succeeded().count())
                .as("%s passed for %s", method, kit.getSimpleName())
                .isEqualTo(1);
    }

    private static Events run(Class<? extends LockContractTest> kit, Class<?> group) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedClass(List.of(kit), group))
                .execute()
                .testEvents();
    }

    /** A kit over a table of local providers, each wrapped by {@link #wrap}. */
    abstract static class BrokenKit extends LockContractTest {
        private final LocalLockProvider backend = new LocalLockProvider();

        @Override
        protected LockProvider newProvider() {
            return wrap(backend.newClient());
        }

        /** The table's one counter, for every name. */
        @Override
        protected boolean startTokensAt(String name, long next) {
            backend.startTokensAt(next);
            return true;
        }

        abstract LockProvider wrap(LockProvider honest);
    }

    static class HonestKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return honest;
        }
    }

    static class AlwaysGrantsKit extends BrokenKit {
        private final AtomicLong tokens = new AtomicLong();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return Acquisition.acquired(tokens.incrementAndGet());
                }

                @Override
                public Release release(String name, String owner) {
                    return Release.RELEASED;
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return List.of();
                }
            };
        }
    }

    static class NoReentrancyKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    boolean mine = delegate()
                            .inspect(request.name())
                            .map(s -> s.holdCounts().containsKey(request.owner()))
                            .orElse(false);
                    return mine
                            ? Acquisition.busy(Duration.ofMillis(50))
                            : delegate().tryAcquire(request);
                }
            };
        }
    }

    static class NeverExpiresKit extends BrokenKit {
        private static final Duration FOREVER = Duration.ofDays(365);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return delegate()
                            .tryAcquire(new LockRequest(request.name(), request.owner(), FOREVER, request.maxWait()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate()
                            .renew(renewals.stream()
                                    .map(r -> new Renewal(r.name(), r.owner(), FOREVER))
                                    .toList());
                }
            };
        }
    }

    static class NonOwnerReleaseKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() == Release.Outcome.NOT_HELD && delegate().forceRelease(name)) {
                        return Release.RELEASED;
                    }
                    return r;
                }
            };
        }
    }

    static class BackwardTokensKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Acquisition a = delegate().tryAcquire(request);
                    return a.isAcquired() ? Acquisition.acquired(1_000_000 - a.fencingToken()) : a;
                }
            };
        }
    }

    /**
     * Waits for a busy lock inside tryAcquire, polling until it is free, the caller's wait has
     * passed or the thread is interrupted (a blocking row lock, a blocking pop): blocking callers
     * see the same waits, but every asynchronous wait then occupies a thread of its factory.
     */
    static class WaitsInsideTryAcquireKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    long end = System.nanoTime()
                            + Math.min(
                                    request.maxWait().toNanos(),
                                    Duration.ofMinutes(1).toNanos());
                    while (true) {
                        Acquisition a = delegate().tryAcquire(request);
                        if (a.isAcquired()
                                || System.nanoTime() - end >= 0
                                || Thread.currentThread().isInterrupted()) {
                            return a;
                        }
                        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                    }
                }
            };
        }
    }

    static class IgnoresWaitTimeoutsKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    // Blocks until the lock is free, whatever the caller's wait.
                    while (true) {
                        Acquisition a = delegate().tryAcquire(request);
                        if (a.isAcquired()
                                || !request.waiting()
                                || Thread.currentThread().isInterrupted()) {
                            return a;
                        }
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return a;
                        }
                    }
                }
            };
        }
    }

    /**
     * Grants a released lock outright to a waiter of the releasing client, with the lease of the
     * waiter's request counted from the release, as a backend that hands over within a process
     * does; but the release answers a plain RELEASED, and no wake-up goes out. The waiter finds the
     * grant at its next attempt, which answers "acquired" without setting the lease again, so its
     * client counts the lease from that attempt: later than the backend does.
     */
    static class DropsGrantsKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                /** The latest waiting request per lock name, of this client. */
                private final Map<String, LockRequest> waiting = new ConcurrentHashMap<>();
                /** Grants made and not passed on: "name owner waitId" → token. */
                private final Map<String, Long> grants = new ConcurrentHashMap<>();

                private final AtomicBoolean granting = new AtomicBoolean();

                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Long granted = grants.remove(key(request.name(), request.owner(), request.waitId()));
                    if (granted != null) {
                        return Acquisition.acquired(granted);
                    }
                    Acquisition a = delegate().tryAcquire(request);
                    if (!a.isAcquired() && request.waiting() && request.waitId() != 0) {
                        waiting.put(request.name(), request);
                    } else {
                        waiting.remove(request.name(), request);
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    LockRequest next = waiting.get(name);
                    granting.set(true);
                    Release r;
                    try {
                        r = delegate().release(name, owner);
                    } finally {
                        granting.set(false);
                    }
                    if (r.outcome() == Release.Outcome.RELEASED && next != null && waiting.remove(name, next)) {
                        Acquisition a =
                                delegate().tryAcquire(new LockRequest(name, next.owner(), next.lease(), Duration.ZERO));
                        if (a.isAcquired()) {
                            grants.put(key(name, next.owner(), next.waitId()), a.fencingToken());
                        }
                    }
                    return r;
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    waiting.computeIfPresent(name, (n, r) -> r.owner().equals(owner) ? null : r);
                    if (grants.remove(key(name, owner, waitId)) != null) {
                        delegate().release(name, owner);
                    }
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    // The grant is made without a wake-up: the releasing process would wake its own waiter.
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(String grantee) {
                            if (!granting.get()) {
                                listener.released(grantee);
                            }
                        }

                        @Override
                        public void missedNotifications() {
                            listener.missedNotifications();
                        }
                    });
                }

                private static String key(String name, String owner, long waitId) {
                    return name + " " + owner + " " + waitId;
                }
            };
        }
    }
    /** Every lease (and renewal) ten times as long as asked. */
    static class TenfoldLeaseKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(
                                    r.name(), r.owner(), r.lease().multipliedBy(10), r.maxWait(), r.waitId()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate()
                            .renew(renewals.stream()
                                    .map(r -> new Renewal(
                                            r.name(), r.owner(), r.lease().multipliedBy(10)))
                                    .toList());
                }
            };
        }
    }

    /** Acquisitions are right; renewals set ten times the lease asked for. */
    static class TenfoldRenewalKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate()
                            .renew(renewals.stream()
                                    .map(r -> new Renewal(
                                            r.name(), r.owner(), r.lease().multipliedBy(10)))
                                    .toList());
                }
            };
        }
    }

    /** A reentrant acquisition sets its own lease from now, even when that is shorter than the current one. */
    static class ShortensOnReentryKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    boolean mine = delegate()
                            .inspect(r.name())
                            .map(s -> s.holdCounts().containsKey(r.owner()))
                            .orElse(false);
                    Acquisition a = delegate().tryAcquire(r);
                    if (mine && a.isAcquired()) {
                        delegate().renew(List.of(new Renewal(r.name(), r.owner(), r.lease())));
                    }
                    return a;
                }
            };
        }
    }

    /** A reentrant acquisition keeps the current lease, even when the new one is longer. */
    static class KeepsLeaseOnReentryKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Optional<LockState> before = delegate()
                            .inspect(r.name())
                            .filter(s -> s.holdCounts().containsKey(r.owner()));
                    Acquisition a = delegate().tryAcquire(r);
                    if (before.isPresent() && a.isAcquired()) {
                        delegate()
                                .renew(List.of(new Renewal(
                                        r.name(), r.owner(), before.get().remainingLease())));
                    }
                    return a;
                }
            };
        }
    }

    /** Retry hints ten times as long as the time left on the holder's lease. */
    static class TenfoldRetryKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    return a.isAcquired() ? a : Acquisition.busy(a.retryAfter().multipliedBy(10));
                }
            };
        }
    }

    /** Inspect answers from a per-client cache that it keeps for ten seconds. */
    static class StaleInspectionKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private final Map<String, Optional<LockState>> cache = new ConcurrentHashMap<>();
                private final Map<String, Long> cachedAt = new ConcurrentHashMap<>();

                @Override
                public Optional<LockState> inspect(String name) {
                    Long at = cachedAt.get(name);
                    if (at == null
                            || System.nanoTime() - at > Duration.ofSeconds(10).toNanos()) {
                        cache.put(name, delegate().inspect(name));
                        cachedAt.put(name, System.nanoTime());
                    }
                    return cache.get(name);
                }
            };
        }
    }

    /** Inspect answers the token before the holder's (as if read before the last acquisition). */
    static class StaleTokenInspectionKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Optional<LockState> inspect(String name) {
                    return delegate()
                            .inspect(name)
                            .map(s -> new LockState(
                                    s.holdCounts(),
                                    s.remainingLease(),
                                    Math.max(0, s.fencingToken() - 1),
                                    s.waiters()));
                }
            };
        }
    }

    /** Listing leaves out the last page when it is not full (an off-by-one in the paging loop). */
    static class DropsLastPageKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    ListPage page = delegate().list(prefix, cursor, pageSize);
                    return page.next() == null && page.locks().size() < pageSize ? new ListPage(List.of(), null) : page;
                }
            };
        }
    }

    /** Listing passes the prefix on as a pattern, as an unescaped SCAN MATCH or LIKE would. */
    static class PatternPrefixKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    int wild = 0;
                    StringBuilder regex = new StringBuilder();
                    while (wild < prefix.length() && "*?%_".indexOf(prefix.charAt(wild)) < 0) {
                        wild++;
                    }
                    for (char c : prefix.toCharArray()) {
                        regex.append(
                                c == '?' || c == '_'
                                        ? "."
                                        : c == '*' || c == '%'
                                                ? ".*"
                                                : java.util.regex.Pattern.quote(String.valueOf(c)));
                    }
                    java.util.regex.Pattern pattern =
                            java.util.regex.Pattern.compile(regex + ".*", java.util.regex.Pattern.DOTALL);
                    ListPage page = delegate().list(prefix.substring(0, wild), cursor, pageSize);
                    return new ListPage(
                            page.locks().stream()
                                    .filter(h -> pattern.matcher(h.name()).matches())
                                    .toList(),
                            page.next());
                }
            };
        }
    }

    /** The backend keeps only the first 512 characters of a name. */
    static class TruncatesNamesKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(cut(r.name()), r.owner(), r.lease(), r.maxWait(), r.waitId()));
                }

                @Override
                public Release release(String name, String owner) {
                    return delegate().release(cut(name), owner);
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> cutRenewals = renewals.stream()
                            .map(r -> new Renewal(cut(r.name()), r.owner(), r.lease()))
                            .toList();
                    List<Renewal> gone = delegate().renew(cutRenewals);
                    return renewals.stream()
                            .filter(r -> gone.stream()
                                    .anyMatch(g -> g.name().equals(cut(r.name()))
                                            && g.owner().equals(r.owner())))
                            .toList();
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    delegate().abandon(cut(name), owner, waitId);
                }

                @Override
                public boolean forceRelease(String name) {
                    return delegate().forceRelease(cut(name));
                }

                @Override
                public Optional<LockState> inspect(String name) {
                    return delegate().inspect(cut(name));
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(cut(name), listener);
                }

                private String cut(String name) {
                    return name.length() > 512 ? name.substring(0, 512) : name;
                }
            };
        }
    }

    /** Inspect holds a lock of the client for a second (a slow query on the client's only connection), and so does every other call. */
    static class BlockingInspectionKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            ReentrantLock connection = new ReentrantLock();
            return new ForwardingLockProvider(honest) {
                @Override
                public Optional<LockState> inspect(String name) {
                    return on(() -> {
                        LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
                        return delegate().inspect(name);
                    });
                }

                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return on(() -> delegate().tryAcquire(r));
                }

                @Override
                public Release release(String name, String owner) {
                    return on(() -> delegate().release(name, owner));
                }

                private <T> T on(java.util.function.Supplier<T> call) {
                    connection.lock();
                    try {
                        return call.get();
                    } finally {
                        connection.unlock();
                    }
                }
            };
        }
    }

    /** Turns an interrupt during a subscription into a backend failure, as the Redis provider once did. */
    static class FailsWhenInterruptedKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    if (Thread.currentThread().isInterrupted()) {
                        throw new BackendUnavailableException(name, "interrupted while subscribing to wake-ups", null);
                    }
                    return delegate().subscribe(name, listener);
                }
            };
        }
    }

    /** Clears the interrupt status of the thread that calls it. */
    static class SwallowsInterruptsKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Thread.interrupted();
                    return delegate().tryAcquire(r);
                }
            };
        }
    }

    /**
     * Closing any client frees every lock any client of the backend took. (The kit once opened and
     * closed a provider mid-test to read its capabilities, which this provider turned into a
     * failure of its own; it now reads them from a provider it keeps until the test ends.)
     */
    static class CloseFreesEveryoneKit extends BrokenKit {
        private final Set<String> names = ConcurrentHashMap.newKeySet();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    names.add(r.name());
                    return delegate().tryAcquire(r);
                }

                @Override
                public void close() {
                    names.forEach(n -> delegate().forceRelease(n));
                    super.close();
                }
            };
        }
    }

    /**
     * Queues the waiting owners of each client and hands a released lock to the latest of them
     * (passing the grant on, as it should), but ignores abandon: a waiter that gave up still gets
     * the lock, which then sits with nobody until its lease lapses.
     */
    static class IgnoresAbandonKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private final Map<String, LockRequest> waiting = new ConcurrentHashMap<>();

                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    if (!a.isAcquired() && r.waiting() && r.waitId() != 0) {
                        waiting.put(r.name(), r);
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    LockRequest next = waiting.remove(name);
                    if (r.outcome() == Release.Outcome.RELEASED && next != null) {
                        Acquisition a =
                                delegate().tryAcquire(new LockRequest(name, next.owner(), next.lease(), Duration.ZERO));
                        if (a.isAcquired()) {
                            return Release.grantedTo(next.owner(), a.fencingToken(), next.waitId());
                        }
                    }
                    return r;
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    // the fault: the queue entry stays
                }
            };
        }
    }

    /** Once closed, every call throws IllegalStateException, as the in-JVM provider once did. */
    static class IllegalStateWhenClosedKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ClosedGate(honest) {
                @Override
                RuntimeException closedFailure(String name) {
                    return new IllegalStateException("closed (lock '" + name + "')");
                }
            };
        }
    }

    /** Close is ignored: the provider keeps answering, as one whose pool reconnects on demand would. */
    static class AnswersWhenClosedKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public void close() {
                    // the fault: nothing is closed
                }
            };
        }
    }

    /** Fails every call after close with {@link #closedFailure}, before the delegate sees it. */
    abstract static class ClosedGate extends ForwardingLockProvider {
        private volatile boolean closed;

        ClosedGate(LockProvider delegate) {
            super(delegate);
        }

        abstract RuntimeException closedFailure(String name);

        private void check(String name) {
            if (closed) {
                throw closedFailure(name);
            }
        }

        @Override
        public Acquisition tryAcquire(LockRequest r) {
            check(r.name());
            return super.tryAcquire(r);
        }

        @Override
        public Release release(String name, String owner) {
            check(name);
            return super.release(name, owner);
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            check(renewals.isEmpty() ? null : renewals.get(0).name());
            return super.renew(renewals);
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            check(name);
            super.abandon(name, owner, waitId);
        }

        @Override
        public boolean forceRelease(String name) {
            check(name);
            return super.forceRelease(name);
        }

        @Override
        public Optional<LockState> inspect(String name) {
            check(name);
            return super.inspect(name);
        }

        @Override
        public Subscription subscribe(String name, WakeUpListener listener) {
            check(name);
            return super.subscribe(name, listener);
        }

        @Override
        public void close() {
            closed = true;
            super.close();
        }
    }

    /**
     * Reuses the token of the last released hold of a name for the next one, as a backend that
     * keeps its counter in the lock's own key (deleted at release) would: every term after a
     * hand-over carries the number of the term before.
     */
    static class ReusesReleasedTokenKit extends BrokenKit {
        /** Per name: the token the honest provider gave and the one this provider answered, of the current hold. */
        private final Map<String, long[]> current = new ConcurrentHashMap<>();
        /** Per name: the answered token of the last hold released. */
        private final Map<String, Long> released = new ConcurrentHashMap<>();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Acquisition a = delegate().tryAcquire(request);
                    if (!a.isAcquired()) {
                        return a;
                    }
                    long[] c = current.compute(
                            request.name(),
                            (n, old) -> old != null && old[0] == a.fencingToken()
                                    ? old
                                    : new long[] {a.fencingToken(), released.getOrDefault(n, a.fencingToken())});
                    return Acquisition.acquired(c[1]);
                }

                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() == Release.Outcome.RELEASED) {
                        long[] c = current.remove(name);
                        if (c != null) {
                            released.put(name, c[1]);
                        }
                    }
                    return r;
                }
            };
        }
    }

    /** Renews what it can, but never says that a hold was gone. */
    static class HidesLossesKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    delegate().renew(renewals);
                    return List.of();
                }
            };
        }
    }

    /** Every lease and renewal half as long as asked: the backend frees a lock before its holder's deadline. */
    static class HalvedLeaseKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(
                                    r.name(), r.owner(), r.lease().dividedBy(2), r.maxWait(), r.waitId()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> halved = renewals.stream()
                            .map(r -> new Renewal(r.name(), r.owner(), r.lease().dividedBy(2)))
                            .toList();
                    List<Renewal> gone = delegate().renew(halved);
                    // Answers with the caller's renewals: losses are reported right, only leases are short.
                    List<Renewal> answer = new java.util.ArrayList<>();
                    for (int i = 0; i < renewals.size(); i++) {
                        if (gone.contains(halved.get(i))) {
                            answer.add(renewals.get(i));
                        }
                    }
                    return answer;
                }
            };
        }
    }

    /** Subscriptions that never deliver a wake-up: waiters learn of a release only at their retry hint. */
    static class WakesNobodyKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return () -> {};
                }
            };
        }
    }
}
