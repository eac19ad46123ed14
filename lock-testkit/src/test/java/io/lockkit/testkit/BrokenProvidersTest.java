package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedMethod;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The kit is only as good as the broken providers it rejects: each provider here breaks one
 * guarantee, and the kit group that covers it must fail.
 *
 * <p>Its methods run concurrently where the module enables parallel execution (lock-testkit's
 * surefire configuration), as do the rows of its table of broken kits: each makes its own kits,
 * each kit its own in-JVM backend, and the one static state is the memo of the honest provider's
 * runs, which rows that name the same kit test share. The {@code EngineTestKit} launches inside run
 * their groups one test at a time, as a provider's own build would.
 */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@Execution(ExecutionMode.CONCURRENT)
class BrokenProvidersTest {

    /**
     * One broken kit and what it must be rejected for: the kit group that covers its fault fails
     * ({@code method} null: at least one test of the group), or that one test of the group fails
     * for the kit and passes for the honest provider. A group is a nested group of
     * {@link LockContractTest}, or {@link LockProviderFactoryContract} for a kit of a broken factory
     * ({@link BrokenFactoryKits}), whose honest counterpart is {@link BrokenFactoryKits.HonestFactoryKit}.
     */
    record Row(
            String rejectedFor,
            Class<?> kit,
            Class<?> group,
            @Nullable String method) {
        @Override
        public String toString() {
            return rejectedFor;
        }
    }

    private static Row row(
            String rejectedFor, Class<? extends LockContractTest> kit, Class<?> group, @Nullable String method) {
        return new Row(rejectedFor, kit, group, method);
    }

    /** A broken provider factory's kit, rejected by the factory contract's test {@code method}. */
    private static Row factoryRow(String rejectedFor, Class<? extends LockProviderFactoryContract> kit, String method) {
        return new Row(rejectedFor, kit, LockProviderFactoryContract.class, method);
    }

    /** Every broken kit whose rejection is one launch (and the honest provider's) of a group or a test. */
    static Stream<Row> rows() {
        return Stream.of(
                row(
                        "a provider whose capacity check is off by one fails the concurrent-claims race",
                        BrokenClaimKits.CapacityOffByOneKit.class,
                        LockContractTest.SharedHolds.class,
                        "concurrentClaimsKeepTheRule"),
                row(
                        "a provider whose release serves the releasing client's later waiter first fails the fair-queue test",
                        BrokenClaimKits.ReleasingClientFirstKit.class,
                        LockContractTest.FairQueue.class,
                        "theReleasingClientsWaiterDoesNotJumpTheQueue"),
                row(
                        "a provider whose abandoned waits wake nobody fails the read/write lock's given-up-writer test",
                        BrokenClaimKits.AbandonWakesNobodyKit.class,
                        LockContractTest.ReadWrite.class,
                        "aWriterThatGivesUpLetsReadersIn"),
                row(
                        "a provider that admits a reader while a writer holds fails the read/write lock's exclusion test",
                        BrokenClaimKits.ReaderBesideWriterKit.class,
                        LockContractTest.ReadWrite.class,
                        "aWriterExcludesEveryone"),
                row(
                        "a provider that admits a writer while readers hold fails the read/write lock's sharing test",
                        BrokenClaimKits.WriterBesideReadersKit.class,
                        LockContractTest.ReadWrite.class,
                        "readersShareAcrossClients"),
                row(
                        "a provider whose writers never queue fails the read/write lock's writer-starvation test",
                        BrokenClaimKits.NoWriterPreferenceKit.class,
                        LockContractTest.ReadWrite.class,
                        "aWaitingWriterIsNotStarved"),
                row(
                        "a provider that counts permits per client fails the semaphore's per-hold test",
                        BrokenClaimKits.PermitsPerClientKit.class,
                        LockContractTest.LeasedSemaphore.class,
                        "permitsCountPerHold"),
                row(
                        "a provider that admits a reader while a writer holds fails the shared-holds group",
                        BrokenClaimKits.ReaderBesideWriterKit.class,
                        LockContractTest.SharedHolds.class,
                        "readersShareAndAWriterWaitsForTheLast"),
                row(
                        "a provider that admits a writer while readers hold fails the shared-holds group",
                        BrokenClaimKits.WriterBesideReadersKit.class,
                        LockContractTest.SharedHolds.class,
                        "readersShareAndAWriterWaitsForTheLast"),
                row(
                        "a provider whose writers never queue, so readers starve them, fails the writer-preference test",
                        BrokenClaimKits.NoWriterPreferenceKit.class,
                        LockContractTest.SharedHolds.class,
                        "aWaitingWriterKeepsNewReadersOut"),
                row(
                        "a provider whose reader release frees the other readers (Redisson #891) fails the own-hold-only test",
                        BrokenClaimKits.ReleaseFreesEveryReaderKit.class,
                        LockContractTest.SharedHolds.class,
                        "aReadersReleaseEndsItsOwnHoldOnly"),
                row(
                        "a provider whose shorter reentrant lease cuts the hold (Redisson #1110) fails the reentrant-lease test",
                        BrokenClaimKits.ReentrantLeaseCutsKit.class,
                        LockContractTest.SharedHolds.class,
                        "aShorterReentrantLeaseNeverCutsTheHold"),
                row(
                        "a provider that counts permits per client instead of per hold fails the permit-count test",
                        BrokenClaimKits.PermitsPerClientKit.class,
                        LockContractTest.SharedHolds.class,
                        "permitsCountPerHoldAgainstTheStoredCapacity"),
                row(
                        "a provider that never returns a crashed holder's permits fails the lapsed-permits test",
                        BrokenClaimKits.PermitsNeverLapseKit.class,
                        LockContractTest.SharedHolds.class,
                        "aLapsedHoldersPermitsComeBack"),
                row(
                        "a provider whose fair claims barge past the queue fails the fair-queue group",
                        BrokenClaimKits.UnfairKit.class,
                        LockContractTest.FairQueue.class,
                        "aFairClaimQueuesBehindEarlierWaiters"),
                row(
                        "a provider whose dead waiters keep their place fails the lapsed-place test",
                        BrokenClaimKits.PlacesNeverLapseKit.class,
                        LockContractTest.FairQueue.class,
                        "aDeadWaitersPlaceLapses"),
                row(
                        "a provider that always grants fails mutual exclusion",
                        BrokenCoreKits.AlwaysGrantsKit.class,
                        LockContractTest.MutualExclusion.class,
                        null),
                row(
                        "a provider without reentrancy fails the reentrancy group",
                        BrokenCoreKits.NoReentrancyKit.class,
                        LockContractTest.Reentrancy.class,
                        null),
                row(
                        "a provider whose leases never expire fails the expiry group",
                        BrokenCoreKits.NeverExpiresKit.class,
                        LockContractTest.Expiry.class,
                        null),
                row(
                        "a provider that lets a non-owner release fails the expiry group",
                        BrokenCoreKits.NonOwnerReleaseKit.class,
                        LockContractTest.Expiry.class,
                        null),
                row(
                        "a provider whose tokens go backwards fails the fencing group",
                        BrokenCoreKits.BackwardTokensKit.class,
                        LockContractTest.Fencing.class,
                        null),
                row(
                        "a provider that waits for a busy lock inside tryAcquire fails the asynchronous acquisition group",
                        BrokenAsyncKits.WaitsInsideTryAcquireKit.class,
                        LockContractTest.Async.class,
                        "asyncWaitsKeepNoThread"),
                row(
                        "a queueing provider that ignores abandons fails the cancelled-async-wait test",
                        BrokenQueueKits.KeepsAbandonedQueueEntryKit.class,
                        LockContractTest.Async.class,
                        "aCancelledAsyncWaitLeavesNoHold"),
                row(
                        "a provider that ignores wait timeouts fails the waiting group",
                        BrokenWaitKits.IgnoresWaitTimeoutsKit.class,
                        LockContractTest.Waiting.class,
                        null),
                row(
                        "a provider whose release grants the lock to a local waiter without passing the grant on fails the hand-over group",
                        BrokenGrantKits.DropsGrantsKit.class,
                        LockContractTest.HandOver.class,
                        null),
                row(
                        "a provider whose leases run 10 times longer than asked fails the lease-length test",
                        BrokenLeaseKits.TenfoldLeaseKit.class,
                        LockContractTest.Expiry.class,
                        "lapsedLeaseEndsOnTime"),
                row(
                        "a provider whose renewals set 10 times the lease asked for fails the renewal-length test",
                        BrokenLeaseKits.TenfoldRenewalKit.class,
                        LockContractTest.Expiry.class,
                        "renewalSetsTheLengthAskedFor"),
                row(
                        "a provider whose reentrant acquisition shortens the lease fails the reentrant-lease test",
                        BrokenLeaseKits.ShortensOnReentryKit.class,
                        LockContractTest.Expiry.class,
                        "reentrantAcquisitionNeverShortensTheLease"),
                row(
                        "a provider whose reentrant acquisition ignores a longer lease fails the lengthening test",
                        BrokenLeaseKits.KeepsLeaseOnReentryKit.class,
                        LockContractTest.Expiry.class,
                        "reentrantAcquisitionWithALongerLeaseLengthensIt"),
                row(
                        "a provider whose retry hints are 10 times too long fails the lapsed-lock waiter test",
                        BrokenWaitKits.TenfoldRetryKit.class,
                        LockContractTest.Waiting.class,
                        "waiterTakesALapsedLockSoonAfterTheLease"),
                row(
                        "a provider whose inspect answers stale hold counts and leases fails both inspection tests (inspectionFollowsReentryAndRelease)",
                        BrokenInspectionKits.StaleInspectionKit.class,
                        LockContractTest.Inspection.class,
                        "inspectionFollowsReentryAndRelease"),
                row(
                        "a provider whose inspect answers stale hold counts and leases fails both inspection tests (inspectionFollowsTheLeaseAndItsLapse)",
                        BrokenInspectionKits.StaleInspectionKit.class,
                        LockContractTest.Inspection.class,
                        "inspectionFollowsTheLeaseAndItsLapse"),
                row(
                        "a provider whose inspect answers stale hold counts fails the factory's inspect test",
                        BrokenInspectionKits.StaleInspectionKit.class,
                        LockContractTest.OperatorInspection.class,
                        "inspectShowsHolderCountTokenAndLease"),
                row(
                        "a provider whose inspect answers the token before the holder's fails both token checks of inspect (inspectShowsHolderCountTokenAndLease)",
                        BrokenInspectionKits.StaleTokenInspectionKit.class,
                        LockContractTest.OperatorInspection.class,
                        "inspectShowsHolderCountTokenAndLease"),
                row(
                        "a provider whose inspect answers the token before the holder's fails both token checks of inspect (inspectTellsHoldersApart)",
                        BrokenInspectionKits.StaleTokenInspectionKit.class,
                        LockContractTest.OperatorInspection.class,
                        "inspectTellsHoldersApart"),
                row(
                        "a provider whose listing drops the last, partial page fails the paging test",
                        BrokenInspectionKits.DropsLastPageKit.class,
                        LockContractTest.Listing.class,
                        "listingSpansPages"),
                row(
                        "a provider that matches a prefix as a pattern (?, _ one character; *, % any) fails the literal-prefix test",
                        BrokenInspectionKits.PatternPrefixKit.class, LockContractTest.Listing.class, "prefixIsLiteral"),
                row(
                        "a provider that truncates long names fails the long-names test",
                        BrokenNameKits.TruncatesNamesKit.class,
                        LockContractTest.Independence.class,
                        "longNamesDifferingInTheLastCharacterAreDifferentLocks"),
                row(
                        "a provider whose inspect blocks the client's other calls fails the inspection test",
                        BrokenInspectionKits.BlockingInspectionKit.class,
                        LockContractTest.Inspection.class,
                        "inspectionDoesNotBlockTheClient"),
                row(
                        "a provider that fails a wait because of an interrupt fails the interrupt-on-entry test",
                        BrokenWaitKits.FailsWhenInterruptedKit.class,
                        LockContractTest.Interrupts.class,
                        "lockWithTheInterruptSetWaitsAndKeepsTheFlag"),
                row(
                        "a provider that clears the interrupt status fails the interrupt-on-entry test",
                        BrokenWaitKits.SwallowsInterruptsKit.class,
                        LockContractTest.Interrupts.class,
                        "lockWithTheInterruptSetWaitsAndKeepsTheFlag"),
                row(
                        "a provider whose close frees every client's holds fails the closing test (the kit reads capabilities without closing a provider mid-test)",
                        BrokenCloseKits.CloseFreesEveryoneKit.class,
                        LockContractTest.Closing.class,
                        "closingOneClientLeavesAnotherClientsHoldsAlone"),
                row(
                        "a provider that throws IllegalStateException once closed fails the closed-provider test",
                        BrokenCloseKits.IllegalStateWhenClosedKit.class,
                        LockContractTest.ClosedProvider.class,
                        "everyCallAfterCloseThrowsLockException"),
                row(
                        "a provider that keeps answering once closed fails the closed-provider test",
                        BrokenCloseKits.AnswersWhenClosedKit.class,
                        LockContractTest.ClosedProvider.class,
                        "everyCallAfterCloseThrowsLockException"),
                row(
                        "a provider that hands a lock to a waiter that gave up fails the abandon test",
                        BrokenGrantKits.GrantsToAbandonedWaiterKit.class,
                        LockContractTest.HandOver.class,
                        "abandonedWaiterOfTheHoldersClientDoesNotKeepTheLock"),
                row(
                        "a provider that lets a released lock be taken again with the released token fails the terms test",
                        BrokenTokenKits.ReusesReleasedTokenKit.class,
                        LockContractTest.Leadership.class,
                        "termsStrictlyIncrease"),
                row(
                        "a provider whose renewals never report a lost hold fails the leadership-loss test",
                        BrokenLeaseKits.HidesLossesKit.class,
                        LockContractTest.Leadership.class,
                        "leaderOfALostHoldIsToldAtItsNextRenewal"),
                row(
                        "a provider whose leases end at half the time asked fails the cut-off leader test (two leaders)",
                        BrokenLeaseKits.HalvedLeaseKit.class,
                        LockContractTest.Leadership.class,
                        "cutOffLeaderIsToldBeforeAnotherIsElected"),
                row(
                        "a provider whose renewals set 10 times the lease keeps a cut-off leader's successor waiting",
                        BrokenLeaseKits.TenfoldRenewalKit.class,
                        LockContractTest.Leadership.class,
                        "cutOffLeaderIsToldBeforeAnotherIsElected"),
                row(
                        "a provider whose releases wake no waiter fails the prompt hand-over test",
                        BrokenWakeUpKits.WakesNobodyKit.class,
                        LockContractTest.Leadership.class,
                        "stepDownAndCloseHandOverAtOnce"),
                row(
                        "a provider whose inspect and listing read tokens through a double fails the exact-token test",
                        BrokenTokenKits.InspectsTokensThroughADoubleKit.class,
                        LockContractTest.Fencing.class,
                        "tokenPastTwoToThe53IsExactEverywhere"),
                row(
                        "a provider whose renew extends the lock for whoever holds it fails the taken-over renewal test",
                        BrokenHoldKits.RenewsWhoeverHoldsKit.class,
                        LockContractTest.Renewal.class,
                        "renewalOfAHoldTakenOverIsReportedLost"),
                row(
                        "a provider whose batch renewals report no losses fails the batch renewal test",
                        BrokenHoldKits.BatchRenewalLosesNothingKit.class,
                        LockContractTest.Renewal.class,
                        "batchRenewalReportsExactlyTheLostHolds"),
                row(
                        "a provider whose release compares owners by their client part fails the same-client release test",
                        BrokenHoldKits.ReleasesByClientKit.class,
                        LockContractTest.Ownership.class,
                        "releaseOfALapsedHoldLeavesTheSameClientsNextHolderAlone"),
                row(
                        "a provider that compares owner ids by prefix fails the whole-owner-id test",
                        BrokenHoldKits.OwnersByPrefixKit.class,
                        LockContractTest.Ownership.class,
                        "ownerIdsAreToldApartWhole"),
                row(
                        "a provider that keeps hold counts in 16 bits fails the 32,768-holds test",
                        BrokenHoldKits.SixteenBitHoldCountsKit.class,
                        LockContractTest.Reentrancy.class,
                        "holdCountsGoPast16Bits"),
                row(
                        "a provider that keeps leases in 32-bit milliseconds fails the long-lease test",
                        BrokenHoldKits.ThirtyTwoBitLeasesKit.class,
                        LockContractTest.Expiry.class,
                        "longLeasesLastAsLongAsAsked"),
                row(
                        "a provider that clamps leases to an hour fails the long-lease test",
                        BrokenHoldKits.HourLeasesKit.class,
                        LockContractTest.Expiry.class,
                        "longLeasesLastAsLongAsAsked"),
                row(
                        "a provider whose renew clears the interrupt status fails the interrupted-calls test",
                        BrokenHoldKits.RenewClearsInterruptKit.class,
                        LockContractTest.Interrupts.class,
                        "callsThatDoNotWaitKeepTheInterruptStatus"),
                row(
                        "a provider that normalizes names (NFC) fails the equivalent-names test",
                        BrokenNameKits.NormalizesNamesKit.class,
                        LockContractTest.Independence.class,
                        "equivalentUnicodeNamesAreDifferentLocks"),
                row(
                        "a provider that keeps names in 8,192 bytes of UTF-8 fails the longest-names test",
                        BrokenNameKits.Utf8ByteColumnKit.class,
                        LockContractTest.Independence.class,
                        "longestNamesDifferingInTheLastCharacterAreDifferentLocks"),
                row(
                        "a provider whose listing matches prefixes case-insensitively fails the exact-prefix test",
                        BrokenNameKits.CaseInsensitivePrefixKit.class,
                        LockContractTest.Listing.class,
                        "prefixMatchesExactly"),
                row(
                        "a provider whose listing shows locks that lapsed unseen fails the lapsed-listing test",
                        BrokenNameKits.ListsLapsedLocksKit.class,
                        LockContractTest.Listing.class,
                        "lockLapsedUnseenIsNotListed"),
                row(
                        "a provider whose inspect names the latest contender fails the holder-not-contender test",
                        BrokenNameKits.InspectsLatestContenderKit.class,
                        LockContractTest.OperatorInspection.class,
                        "inspectNamesTheHolderNotTheLatestContender"),
                row(
                        "a provider whose busy answers say \\\"try again now\\\" fails the polling test",
                        BrokenWakeUpKits.ZeroRetryHintKit.class,
                        LockContractTest.Waiting.class,
                        "busyAnswersDoNotMakeAWaiterPoll"),
                row(
                        "a provider whose release wakes every waiter of a client fails the herd test",
                        BrokenWakeUpKits.WakesEveryWaiterKit.class,
                        LockContractTest.WakeUps.class,
                        "aReleaseWakesOneWaiterOfAClient"),
                row(
                        "a provider whose subscriptions outlive their close fails the subscriptions test",
                        BrokenWakeUpKits.SubscriptionOutlivesCloseKit.class,
                        LockContractTest.WakeUps.class,
                        "releasesReachOnlyOpenSubscriptionsOfTheName"),
                row(
                        "a provider whose subscriptions hear every name they start with fails the subscriptions test",
                        BrokenWakeUpKits.WakeUpsByPrefixKit.class,
                        LockContractTest.WakeUps.class,
                        "releasesReachOnlyOpenSubscriptionsOfTheName"),
                row(
                        "a provider that cuts leases to whole milliseconds fails the never-valid-once-taken test",
                        BrokenHoldKits.MillisecondLeasesKit.class,
                        LockContractTest.Expiry.class,
                        "holdIsNeverValidOnceAnotherClientHasTheLock"),
                row(
                        "a provider whose abandon releases the owner's hold from another wait fails the abandon-of-another-wait test",
                        BrokenHoldKits.AbandonReleasesAnyHoldKit.class,
                        LockContractTest.HandOver.class,
                        "abandonOfAnotherWaitLeavesTheOwnersHoldAlone"),
                row(
                        "a provider whose force release spares a lock handed to a waiter fails the force-release hand-over test",
                        BrokenQueueKits.ForceReleaseSparesHandOversKit.class,
                        LockContractTest.HandOver.class,
                        "forceReleaseFreesALockHandedToAWaiter"),
                row(
                        "a provider whose subscriptions take effect after subscribe returned fails the just-subscribed test",
                        BrokenWakeUpKits.LateSubscriptionKit.class,
                        LockContractTest.WakeUps.class,
                        "releaseJustAfterSubscribingIsHeard"),
                row(
                        "a provider that drops a name's listeners when the last one's unsubscription completes fails the racing-subscription test",
                        BrokenWakeUpKits.DropsListenersOnUnsubscribedKit.class,
                        LockContractTest.WakeUps.class,
                        "subscriptionRacingTheLastCloseHearsTheNextRelease"),
                row(
                        "a provider whose listing pages by offset fails the held-throughout listing test",
                        BrokenNameKits.OffsetPagingKit.class,
                        LockContractTest.Listing.class,
                        "lockHeldThroughoutIsListedWhileEarlierOnesGo"),
                row(
                        "a provider that matches a renewal batch's answers by lock name fails the two-owners-of-one-name renewal test",
                        BrokenHoldKits.RenewalsMatchedByNameKit.class,
                        LockContractTest.Renewal.class,
                        "batchRenewalTellsTwoOwnersOfOneNameApart"),
                row(
                        "a provider that pauses 200 ms and tries once more before a busy answer fails the round-trip test and the 100-async-waits test (aBusyAnswerComesBackInAboutOneRoundTrip)",
                        BrokenAsyncKits.RetriesOnceInsideTryAcquireKit.class,
                        LockContractTest.Async.class,
                        "aBusyAnswerComesBackInAboutOneRoundTrip"),
                row(
                        "a provider that pauses 200 ms and tries once more before a busy answer fails the round-trip test and the 100-async-waits test (asyncWaitsKeepNoThread)",
                        BrokenAsyncKits.RetriesOnceInsideTryAcquireKit.class,
                        LockContractTest.Async.class,
                        "asyncWaitsKeepNoThread"),
                row(
                        "a provider whose listener lists are made by computeIfAbsent and dropped by computeIfPresent when empty fails the racing-subscription test",
                        BrokenWakeUpKits.RacyListenersKit.class,
                        LockContractTest.WakeUps.class,
                        "subscriptionRacingTheLastCloseHearsTheNextRelease"),
                row(
                        "a provider whose granted wait takes its grant again reentrantly fails the grant test",
                        BrokenGrantKits.GrantRetakenReentrantlyKit.class,
                        LockContractTest.HandOver.class,
                        "aGrantToAWaiterOfTheReleasingClientIsTheWaitersOneHold"),
                row(
                        "a provider that counts fencing tokens per client fails the token-order test",
                        BrokenHoldKits.TokensPerClientKit.class,
                        LockContractTest.Fencing.class,
                        "tokensIncreaseAcrossHolders"),
                row(
                        "a provider whose force release wakes nobody fails the force-unlock test",
                        BrokenWakeUpKits.ForceReleaseWakesNobodyKit.class,
                        LockContractTest.Ownership.class,
                        "forceUnlockFreesAndWakes"),
                row(
                        "a provider that cuts leases to whole seconds fails the lapsed-lease test",
                        BrokenHoldKits.WholeSecondLeasesKit.class,
                        LockContractTest.Expiry.class,
                        "lapsedLeaseLetsAnotherClientIn"),
                row(
                        "a provider that declares no capability once closed fails the closed-provider test",
                        BrokenHoldKits.CapabilitiesGoneOnCloseKit.class,
                        LockContractTest.ClosedProvider.class,
                        "everyCallAfterCloseThrowsLockException"),
                row(
                        "a provider that ignores the abandon of another client's waiter fails the busy-for-others test (whose waiters give up)",
                        BrokenQueueKits.KeepsAbandonedQueueEntryKit.class,
                        LockContractTest.MutualExclusion.class,
                        "aHeldLockIsBusyForOtherClients"),
                row(
                        "a provider whose subscriptions deliver one release and no more fails the every-release test",
                        BrokenWakeUpKits.OneShotSubscriptionKit.class,
                        LockContractTest.WakeUps.class,
                        "anOpenSubscriptionHearsEveryRelease"),
                factoryRow(
                        "a provider factory that reads a key it does not declare fails the declared-keys test",
                        BrokenFactoryKits.UndeclaredKeyKit.class,
                        "declaresEveryKeyItReads"),
                factoryRow(
                        "a provider factory that refuses a malformed value without naming its key fails the malformed-value test",
                        BrokenFactoryKits.UnnamedMalformedValueKit.class,
                        "malformedValuesAreRefusedNamingTheKey"),
                row(
                        "a provider whose release wakes one listening client only (readers serialized after a writer, Redisson #1542) fails the every-reader wake-up test",
                        BrokenPrimitiveKits.OneClientWokenKit.class,
                        LockContractTest.ReadWrite.class,
                        "aWritersReleaseWakesEveryReader"),
                row(
                        "a provider whose shared holders' releases wake nobody (a waiter misses the unlock until the lease runs out, Redisson #3891) fails the waiting-writer test",
                        BrokenPrimitiveKits.SharedReleaseWakesNobodyKit.class,
                        LockContractTest.ReadWrite.class,
                        "aWaitingWriterIsNotStarved"),
                row(
                        "a provider that never lets a read claim beside its owner's write hold (downgrade broken, Redisson #4217) fails the downgrade test",
                        BrokenPrimitiveKits.NoDowngradeKit.class,
                        LockContractTest.ReadWrite.class,
                        "aWriterDowngrades"),
                row(
                        "a provider that leases permits but never renews them (a long task loses its permit silently) fails the watchdog permit test",
                        BrokenPrimitiveKits.PermitsNeverRenewedKit.class,
                        LockContractTest.LeasedSemaphore.class,
                        "theWatchdogKeepsAPermit"),
                row(
                        "a provider that ignores abandons leaves the busy member of a failed multi-lock queued for the wait that gave up: the multi-lock test fails",
                        BrokenQueueKits.KeepsAbandonedQueueEntryKit.class,
                        LockContractTest.MultiLock.class,
                        "aBusyMemberLeavesNothingHeldOrQueued"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    @DisplayName("each broken provider fails the kit group or test that covers its fault")
    void brokenProviderIsRejected(Row row) {
        String method = row.method();
        if (method == null) {
            assertRejected(row.kit(), row.group());
        } else {
            assertRejectedBy(row.kit(), row.group(), method);
        }
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

    // ---- faults the kit once let through (BrokenHoldKits, BrokenNameKits, BrokenWakeUpKits) ----

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
    @DisplayName(
            "a provider that announces a grant to another client's waiter with a longer lease than it set fails the other-client hand-over test")
    void providerAnnouncingALongerLeaseThanItGrantedIsRejected() {
        assertRejectedBy(
                BrokenGrantKits.HeardGrantsOutlastTheirLeaseKit.class,
                LockContractTest.HandOver.class,
                "handedOverHoldOfAnotherClientIsNeverValidLongerThanOnTheBackend");
        assertPassedBy(
                BrokenGrantKits.HonestHeardGrantsKit.class,
                LockContractTest.HandOver.class,
                "handedOverHoldOfAnotherClientIsNeverValidLongerThanOnTheBackend");
    }

    // ---- faults considered and found covered by tests written for something else ----

    private static void assertRejected(Class<?> kit, Class<?> group) {
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
    private static void assertRejectedBy(Class<?> kit, Class<?> group, String method) {
        Events tests = EngineTestKit.engine("junit-jupiter")
                .selectors(select(kit, group, method))
                .execute()
                .testEvents();
        assertThat(tests.started().count()).as("%s started", method).isEqualTo(1);
        assertThat(tests.failed().count())
                .as("%s failed for %s", method, kit.getSimpleName())
                .isEqualTo(1);
        assertThat(honestPasses(group, method))
                .as("%s passed for the honest provider", method)
                .isEqualTo(1);
    }

    /**
     * The honest provider's launches of kit tests, each once however many rows name the test: the
     * one static state here, futures that concurrent rows share (the first row to ask launches).
     */
    private static final ConcurrentHashMap<String, CompletableFuture<Long>> HONEST_PASSES = new ConcurrentHashMap<>();

    /** How many times the kit test {@code method} of {@code group} passed for the honest provider (1 or 0). */
    private static long honestPasses(Class<?> group, String method) {
        CompletableFuture<Long> mine = new CompletableFuture<>();
        CompletableFuture<Long> first = HONEST_PASSES.putIfAbsent(group.getName() + "#" + method, mine);
        if (first != null) {
            return first.join();
        }
        try {
            mine.complete(EngineTestKit.engine("junit-jupiter")
                    .selectors(select(honestKit(group), group, method))
                    .execute()
                    .testEvents()
                    .succeeded()
                    .count());
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
        }
        return mine.join();
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

    /** The test {@code method} of {@code group} run for {@code kit}: a nested group's, or a top-level contract's. */
    private static DiscoverySelector select(Class<?> kit, Class<?> group, String method) {
        return group.getEnclosingClass() == LockContractTest.class
                ? selectNestedMethod(List.of(kit), group, method)
                : selectMethod(kit, method);
    }

    /** The honest kit of {@code group}: the honest provider's, or the honest factory's. */
    private static Class<?> honestKit(Class<?> group) {
        return group == LockProviderFactoryContract.class ? BrokenFactoryKits.HonestFactoryKit.class : HonestKit.class;
    }

    private static Events run(Class<?> kit, Class<?> group) {
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
}
