package io.lockkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.ReleaseRequest;
import io.lockkit.spi.Release;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The release of several holds in one provider call ({@link LockProvider#releaseAll}), for a
 * multi-lock's handle: the call is sent once, and each hold is then settled by {@link Holds}
 * exactly as its single release would be (loss reporting, hand-over to this client's waiters).
 * Stateless; thread-safe as {@link Holds} is.
 */
final class BatchReleases {

    private BatchReleases() {}

    /**
     * Releases one hold count of each of {@code held} (holds a handle counts on) with one
     * {@link LockProvider#releaseAll} call, then settles each as {@link Holds#releaseOnce} would.
     * {@code whenEmpty} runs for each as for {@link Holds#releaseOnce}.
     *
     * @return each hold's failure (a loss, or the call's failure), null where it was released
     */
    static List<@Nullable RuntimeException> releaseEach(
            Holds holds, Ticker ticker, List<Hold> held, List<Runnable> whenEmpty) {
        List<ReleaseRequest> requests = new ArrayList<>(held.size());
        boolean[] last = new boolean[held.size()];
        for (int i = 0; i < held.size(); i++) {
            requests.add(new ReleaseRequest(held.get(i).name, held.get(i).owner));
            last[i] = held.get(i).count() <= 1;
        }
        List<@Nullable RuntimeException> failures = new ArrayList<>(held.size());
        long sent = ticker.nanoTime();
        List<Release> answers;
        try {
            answers = holds.provider().releaseAll(requests);
            if (answers == null || answers.size() != held.size()) {
                throw new LockException(held.get(0).name, holds.provider() + " answered releaseAll with " + answers);
            }
        } catch (RuntimeException e) {
            for (int i = 0; i < held.size(); i++) {
                holds.releaseFailed(held.get(i), last[i], whenEmpty.get(i), e);
                failures.add(e);
            }
            return failures;
        }
        for (int i = 0; i < held.size(); i++) {
            try {
                holds.settle(held.get(i), answers.get(i), last[i], sent, whenEmpty.get(i));
                failures.add(null);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        return failures;
    }
}
