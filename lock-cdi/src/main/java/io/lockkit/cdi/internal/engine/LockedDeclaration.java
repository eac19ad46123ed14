package io.lockkit.cdi.internal.engine;

import io.lockkit.LockOptions;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A checked {@code @Locked} method: its name template bound to the parameters, its options, what to
 * do when busy, and how its return value is treated. {@link #check} applies every rule, whether the
 * model is reflection or the CDI language model, so deployment and first call reject the same things.
 */
public record LockedDeclaration(
        String describe,
        List<Object> nameParts,
        LockOptions options,
        WhenBusy whenBusy,
        ReturnKind returnKind,
        String returnType,
        Duration holdAtLeast,
        HoldKind holdKind) {

    /** Return types the lock cannot follow: their work starts after the method has returned. */
    private static final Set<String> REACTIVE_TYPES = Set.of(
            "java.util.concurrent.Flow$Publisher",
            "java.util.concurrent.Flow.Publisher",
            "org.reactivestreams.Publisher",
            "io.smallrye.mutiny.Uni",
            "io.smallrye.mutiny.Multi",
            "reactor.core.publisher.Mono",
            "reactor.core.publisher.Flux",
            "io.reactivex.rxjava3.core.Single",
            "io.reactivex.rxjava3.core.Flowable");

    /** How the interceptor treats the method's result. */
    enum ReturnKind {
        VOID,
        OPTIONAL,
        PRIMITIVE,
        REFERENCE,
        /** Declared {@code CompletionStage<…>} or {@code CompletableFuture<…>}: held until completion. */
        STAGE,
        FUTURE,
        /** As {@link #STAGE}/{@link #FUTURE} with an {@code Optional} result, for {@link WhenBusy#SKIP}. */
        STAGE_OF_OPTIONAL,
        FUTURE_OF_OPTIONAL,
        /** A type an installed {@link io.lockkit.cdi.spi.LockedRuntime} follows ({@code Uni}, {@code Multi}). */
        ADAPTED;

        boolean async() {
            return this == STAGE || this == FUTURE || this == STAGE_OF_OPTIONAL || this == FUTURE_OF_OPTIONAL;
        }
    }

    /** A placeholder resolved against the method: argument position, then the properties to read. */
    record Bound<T>(String text, int index, List<SignatureModel.Property<T>> path) {}

    /** {@code {period:PT1S:execution.scheduledFireTime}}: the period of the time {@code source} reads. */
    record BoundPeriod<T>(NameTemplate.Period period, Bound<T> source) {}

    /** The types a period's time may be read from (the value's own type, by name). */
    static final Set<String> TIME_TYPES =
            Set.of("java.time.Instant", "java.time.ZonedDateTime", "java.time.OffsetDateTime");

    /**
     * Applies every rule to the declaration {@code model} describes with the members {@code values}.
     *
     * @param defaultName the name used for an empty template (declaring class and method)
     * @throws DeclarationException when the declaration cannot work; the message does not name the method
     */
    public static <T> LockedDeclaration check(SignatureModel<T> model, LockedValues values, String defaultName) {
        LockOptions options = options(values);
        if (values.isBulkhead()) {
            permits(values);
        }
        if (values.whenBusy() == WhenBusy.SKIP && values.waitTime() == Locked.FOREVER) {
            throw new DeclarationException(
                    "whenBusy = SKIP never applies with waitTime = FOREVER; give a finite waitTime");
        }
        ReturnKind kind = returnKind(model);
        Duration holdAtLeast = holdAtLeast(values);
        if (values.whenBusy() == WhenBusy.SKIP && kind == ReturnKind.PRIMITIVE) {
            throw new DeclarationException("whenBusy = SKIP cannot skip a method returning " + model.returnTypeName()
                    + ": there is no value to return instead; return a wrapper, an Optional or void");
        }
        String template = values.template();
        if (template.isEmpty()) {
            return new LockedDeclaration(
                    model.describe(),
                    List.of(defaultName),
                    options,
                    values.whenBusy(),
                    kind,
                    model.returnTypeName(),
                    holdAtLeast,
                    values.holdKind());
        }
        NameTemplate parsed;
        try {
            parsed = NameTemplate.parse(template);
        } catch (DeclarationException e) {
            throw new DeclarationException("lock name template '" + template + "': " + e.getMessage());
        }
        List<Object> parts = new ArrayList<>();
        for (NameTemplate.Part part : parsed.parts()) {
            if (part instanceof NameTemplate.Literal literal) {
                parts.add(literal.text());
            } else if (part instanceof NameTemplate.Period period) {
                NameTemplate.Placeholder source = period.source();
                parts.add(source == null ? period : boundPeriod(model, period, source, template));
            } else {
                parts.add(bind(model, (NameTemplate.Placeholder) part, template));
            }
        }
        return new LockedDeclaration(
                model.describe(),
                List.copyOf(parts),
                options,
                values.whenBusy(),
                kind,
                model.returnTypeName(),
                holdAtLeast,
                values.holdKind());
    }

    private static <T> BoundPeriod<T> boundPeriod(
            SignatureModel<T> model, NameTemplate.Period period, NameTemplate.Placeholder source, String template) {
        Bound<T> bound = bind(model, source, template);
        T type = bound.path().isEmpty()
                ? model.parameterType(bound.index())
                : bound.path().get(bound.path().size() - 1).type();
        String typeName = model.typeName(type);
        if (!TIME_TYPES.contains(typeName)) {
            String read = (source.positional() ? Integer.toString(source.index()) : source.parameterName())
                    + source.path().stream().map(step -> "." + step).reduce("", String::concat);
            throw new DeclarationException("lock name template '" + template + "', placeholder " + period.text()
                    + ": the time of a period is read from an Instant, ZonedDateTime or OffsetDateTime; "
                    + read + " is a " + typeName);
        }
        return new BoundPeriod<>(period, bound);
    }

    private static <T> Bound<T> bind(SignatureModel<T> model, NameTemplate.Placeholder p, String template) {
        String where = "lock name template '" + template + "', placeholder " + p.text() + ": ";
        int index;
        String root;
        if (p.positional()) {
            index = p.index();
            if (index >= model.parameterCount()) {
                throw new DeclarationException(where + "the method has " + model.parameterCount() + " parameter"
                        + (model.parameterCount() == 1 ? "" : "s") + " (positions start at 0)");
            }
            root = "{" + index + "}";
        } else {
            if (!model.parameterNamesKnown()) {
                throw new DeclarationException(where + "parameter names are not available; compile the class with"
                        + " javac -parameters (maven-compiler-plugin <parameters>true</parameters>) or use positions"
                        + " such as {0}");
            }
            index = model.parameterNames().indexOf(p.parameterName());
            if (index < 0) {
                throw new DeclarationException(where + "the method has no parameter '" + p.parameterName()
                        + "'; its parameters are " + model.parameterNames());
            }
            root = p.parameterName();
        }
        T type = model.parameterType(index);
        List<SignatureModel.Property<T>> path = new ArrayList<>();
        String walked = root;
        for (String step : p.path()) {
            SignatureModel.Property<T> property = model.property(type, step);
            if (property == null) {
                List<String> names = SignatureModel.accessorNames(step);
                throw new DeclarationException(where + walked + " is a " + model.typeName(type) + ", which has no "
                        + names.get(0) + "(), " + names.get(1) + "() or " + names.get(2)
                        + "() accessor or record component '"
                        + step + "'");
            }
            path.add(property);
            type = property.type();
            walked = walked + "." + step;
        }
        if (model.unstableString(type)) {
            throw new DeclarationException(where + walked + " is a " + model.typeName(type)
                    + ", whose string form differs for equal contents; name an element or a property instead");
        }
        return new Bound<>(p.text(), index, List.copyOf(path));
    }

    /** A bulkhead's capacity and permits: each at least 1, the permits within the capacity. */
    private static void permits(LockedValues v) {
        if (v.capacity() <= 0) {
            throw new DeclarationException("capacity must be at least 1; was " + v.capacity());
        }
        if (v.permits() <= 0) {
            throw new DeclarationException("permits must be at least 1; was " + v.permits());
        }
        if (v.permits() > v.capacity()) {
            throw new DeclarationException(
                    "permits " + v.permits() + " exceed the capacity " + v.capacity() + ", so no call could ever run");
        }
    }

    private static LockOptions options(LockedValues v) {
        LockOptions.Builder b = LockOptions.builder();
        if (v.waitTime() == Locked.FOREVER) {
            b.waitForever();
        } else if (v.waitTime() < 0) {
            throw new DeclarationException(
                    "waitTime must be 0 (try once), positive, or Locked.FOREVER (-1); was " + v.waitTime());
        } else {
            Duration wait = duration("waitTime", v.waitTime(), "waitUnit", v.waitUnit());
            try {
                b.waitAtMost(wait);
            } catch (IllegalArgumentException e) {
                throw new DeclarationException(e.getMessage());
            }
        }
        if (v.leaseTime() != Locked.WATCHDOG) {
            if (v.leaseTime() <= 0) {
                throw new DeclarationException("leaseTime must be positive, or Locked.WATCHDOG (-1) to let the watchdog"
                        + " renew it; was " + v.leaseTime());
            }
            Duration lease = duration("leaseTime", v.leaseTime(), "leaseUnit", v.leaseUnit());
            try {
                b.lease(lease);
            } catch (IllegalArgumentException e) {
                throw new DeclarationException(e.getMessage());
            }
        }
        return b.build();
    }

    private static Duration holdAtLeast(LockedValues v) {
        if (v.holdAtLeast() < 0) {
            throw new DeclarationException(
                    "holdAtLeast must be 0 (release at return) or positive; was " + v.holdAtLeast());
        }
        return duration("holdAtLeast", v.holdAtLeast(), "holdAtLeastUnit", v.holdAtLeastUnit());
    }

    private static Duration duration(String member, long amount, String unitMember, ChronoUnit unit) {
        if (unit.isDurationEstimated() && unit != ChronoUnit.DAYS) {
            throw new DeclarationException(
                    unitMember + " must be an exact unit from NANOS to DAYS; was " + unit.name());
        }
        try {
            return Duration.of(amount, unit);
        } catch (ArithmeticException e) {
            throw new DeclarationException(member + " " + amount + " " + unit.name() + " is too long");
        }
    }

    private static ReturnKind returnKind(SignatureModel<?> model) {
        String type = model.returnTypeName();
        if (LockedRuntimes.installed().asyncType(type) != null) {
            return ReturnKind.ADAPTED;
        }
        if (REACTIVE_TYPES.contains(type)) {
            throw new DeclarationException("returns " + type + ", whose work runs after the method has returned and the"
                    + " lock is released; return CompletionStage or CompletableFuture, or lock inside the pipeline");
        }
        if (model.returnsPlainFuture()) {
            throw new DeclarationException("returns " + type + ", whose completion cannot be observed, so the lock"
                    + " could not be held until it is done; return CompletionStage or CompletableFuture");
        }
        boolean optionalResult = "java.util.Optional".equals(model.returnTypeArgumentName());
        return switch (type) {
            case "void" -> ReturnKind.VOID;
            case "boolean", "byte", "char", "short", "int", "long", "float", "double" -> ReturnKind.PRIMITIVE;
            case "java.util.Optional" -> ReturnKind.OPTIONAL;
            case "java.util.concurrent.CompletionStage" ->
                optionalResult ? ReturnKind.STAGE_OF_OPTIONAL : ReturnKind.STAGE;
            case "java.util.concurrent.CompletableFuture" ->
                optionalResult ? ReturnKind.FUTURE_OF_OPTIONAL : ReturnKind.FUTURE;
            default -> {
                if (model.returnsCompletionStage()) {
                    throw new DeclarationException("returns " + type + "; only CompletionStage and CompletableFuture"
                            + " themselves are supported as asynchronous results");
                }
                yield ReturnKind.REFERENCE;
            }
        };
    }
}
