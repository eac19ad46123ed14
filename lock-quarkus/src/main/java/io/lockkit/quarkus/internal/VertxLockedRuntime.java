package io.lockkit.quarkus.internal;

import io.lockkit.cdi.spi.AsyncType;
import io.lockkit.cdi.spi.LockedCall;
import io.lockkit.cdi.spi.LockedRuntime;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@code @Locked} on Quarkus' event loops: a blocking method called on an event-loop thread fails at
 * once; an asynchronous method called on an event loop resumes on the caller's Vert.x (duplicated)
 * context, so its body runs on the event loop with the request's context, as the caller expects; {@code Uni} and
 * {@code Multi} are followed lazily.
 */
// Design notes.
// - Uni: each subscription takes one LockedCall: acquire (no thread waits), then the method is
//   called and its Uni subscribed; the lock is released when that Uni ends with an item or a
//   failure, or when the subscriber cancels (which, while waiting, abandons the wait). Multi alike,
//   held for the stream's whole life.
// - The release is a backend round trip: on an event loop it runs on Mutiny's worker pool, and the
//   outcome is passed on from the caller's context again, so the loop never waits for the backend.
//   A release that reports a lost hold fails the Uni/Multi instead of its item/completion.
public final class VertxLockedRuntime implements LockedRuntime {

    private static final List<AsyncType> TYPES = List.of(new UniType(), new MultiType());

    /** Called by the ServiceLoader. */
    public VertxLockedRuntime() {}

    @Override
    public boolean mustNotBlock() {
        return Context.isOnEventLoopThread();
    }

    /**
     * The caller's context when the caller is on an event loop; otherwise (a worker thread, even one
     * running a request's context) null, so the body runs on lockkit's thread as anywhere else: a
     * request context dispatches to its event loop, where a body written for a worker could block it.
     */
    @Override
    public @Nullable Executor resumeExecutor() {
        Context context = Vertx.currentContext();
        return context == null || !Context.isOnEventLoopThread() ? null : on(context);
    }

    @Override
    public List<AsyncType> asyncTypes() {
        return TYPES;
    }

    private static Executor on(Context context) {
        return task -> context.runOnContext(ignored -> task.run());
    }

    /** Releases the call's lock without blocking an event loop, then continues on the caller's context. */
    private static Uni<?> release(LockedCall call) {
        Context context = Vertx.currentContext();
        if (context == null || !Context.isOnEventLoopThread()) {
            call.release();
            return Uni.createFrom().voidItem();
        }
        return Uni.createFrom()
                .item(() -> {
                    call.release();
                    return Boolean.TRUE;
                })
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .emitOn(on(context));
    }

    private static Uni<Boolean> acquire(LockedCall call) {
        return Uni.createFrom().completionStage(call::acquire);
    }

    private static @Nullable Object proceed(LockedCall call) throws Exception {
        return call.proceed();
    }

    private static final class UniType implements AsyncType {
        @Override
        public String typeName() {
            return Uni.class.getName();
        }

        @Override
        public Object defer(Supplier<LockedCall> calls) {
            return Uni.createFrom().deferred(() -> {
                LockedCall call = calls.get();
                return acquire(call)
                        .onItem()
                        .transformToUni(granted -> {
                            if (!granted) {
                                return Uni.createFrom().nullItem();
                            }
                            try {
                                Uni<?> method = (Uni<?>) proceed(call);
                                return method == null ? Uni.createFrom().nullItem() : method;
                            } catch (Exception e) {
                                return Uni.createFrom().failure(e);
                            }
                        })
                        .onTermination()
                        .call((item, failure, cancelled) -> release(call));
            });
        }
    }

    private static final class MultiType implements AsyncType {
        @Override
        public String typeName() {
            return Multi.class.getName();
        }

        @Override
        public Object defer(Supplier<LockedCall> calls) {
            return Multi.createFrom().deferred(() -> {
                LockedCall call = calls.get();
                return acquire(call)
                        .onItem()
                        .transformToMulti(granted -> {
                            if (!granted) {
                                return Multi.createFrom().empty();
                            }
                            try {
                                Multi<?> method = (Multi<?>) proceed(call);
                                return method == null ? Multi.createFrom().empty() : method;
                            } catch (Exception e) {
                                return Multi.createFrom().failure(e);
                            }
                        })
                        .onTermination()
                        .call((failure, cancelled) -> release(call));
            });
        }
    }
}
