package io.lockkit.spring.internal;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.cdi.spi.AsyncType;
import io.lockkit.cdi.spi.LockedCall;
import io.lockkit.cdi.spi.LockedRuntime;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor's {@code Mono} and {@code Flux} as returns of {@code @Locked} methods, when Reactor is on
 * the class path: each subscription takes the lock without blocking, subscribes to the method's
 * publisher once granted, and releases when it completes, fails or is cancelled (a cancellation
 * while waiting abandons the wait). A busy {@code whenBusy = SKIP} call completes empty. Registered
 * as a {@link LockedRuntime} service; thread-safe.
 */
// Design notes.
// - Mono.usingWhen / Flux.usingWhen: the release is the resource's asynchronous clean-up, so a lost
//   hold (LockLostException from the release) fails the subscriber instead of its completion.
// - The release is a backend round trip: it runs on Reactor's bounded-elastic scheduler, never on
//   the thread that completed the method's publisher (a Netty event loop in WebFlux).
// - Reactor types are named only in the nested Types class, loaded once Reactor is known to be
//   present: applications without Reactor load this service and get no types from it.
public final class ReactorLockedRuntime implements LockedRuntime {

    private static final boolean REACTOR = LockkitConfig.present("reactor.core.publisher.Mono");

    /** Called by the ServiceLoader. */
    public ReactorLockedRuntime() {}

    @Override
    public List<AsyncType> asyncTypes() {
        return REACTOR ? Types.ALL : List.of();
    }

    /** Loaded only with Reactor present. */
    private static final class Types {
        static final List<AsyncType> ALL = List.of(new MonoType(), new FluxType());

        private static Mono<Boolean> acquire(LockedCall call) {
            return Mono.fromCompletionStage(call::acquire);
        }

        private static Mono<Void> release(LockedCall call) {
            return Mono.<Void>fromRunnable(call::release).subscribeOn(Schedulers.boundedElastic());
        }

        private static @Nullable Publisher<?> proceed(LockedCall call) throws Exception {
            return (Publisher<?>) call.proceed();
        }

        private static Mono<?> body(LockedCall call) {
            return acquire(call).flatMap(granted -> {
                if (!granted) {
                    return Mono.empty();
                }
                try {
                    Publisher<?> method = proceed(call);
                    return method == null ? Mono.empty() : Mono.from(method);
                } catch (Exception e) {
                    return Mono.error(e);
                }
            });
        }

        private static Flux<?> stream(LockedCall call) {
            return acquire(call).flatMapMany(granted -> {
                if (!granted) {
                    return Flux.empty();
                }
                try {
                    Publisher<?> method = proceed(call);
                    return method == null ? Flux.empty() : Flux.from(method);
                } catch (Exception e) {
                    return Flux.error(e);
                }
            });
        }
    }

    private static final class MonoType implements AsyncType {
        @Override
        public String typeName() {
            return Mono.class.getName();
        }

        @Override
        public Object defer(Supplier<LockedCall> calls) {
            return Mono.usingWhen(
                    Mono.fromSupplier(calls),
                    Types::body,
                    Types::release,
                    (call, failure) -> Types.release(call),
                    Types::release);
        }
    }

    private static final class FluxType implements AsyncType {
        @Override
        public String typeName() {
            return Flux.class.getName();
        }

        @Override
        public Object defer(Supplier<LockedCall> calls) {
            return Flux.usingWhen(
                    Mono.fromSupplier(calls),
                    Types::stream,
                    Types::release,
                    (call, failure) -> Types.release(call),
                    Types::release);
        }
    }
}
