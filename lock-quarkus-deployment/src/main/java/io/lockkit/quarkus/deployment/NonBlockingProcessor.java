package io.lockkit.quarkus.deployment;

import io.quarkus.arc.deployment.ValidationPhaseBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem.ValidationErrorBuildItem;
import io.quarkus.arc.processor.BeanInfo;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.MethodInfo;

/**
 * A {@code @Locked} or {@code @DistributedBulkhead} method that waits for its hold (it returns neither {@code Uni}, {@code Multi}
 * nor a {@code CompletionStage}) and is {@code @NonBlocking} fails the build, naming the method:
 * {@code @NonBlocking} runs it on the event loop, where lockkit refuses to wait.
 */
// Design notes.
// - The run-time guard (VertxLockedRuntime.mustNotBlock) still fails such a call at once; this check
//   finds the declarations that would always fail, at build time, as a misused @Locked fails there.
// - @Locked and @NonBlocking count on the method or on its class; class beans only (a producer's
//   product is not intercepted).
class NonBlockingProcessor {

    static final DotName LOCKED = DotName.createSimple("io.lockkit.cdi.Locked");
    static final DotName BULKHEAD = DotName.createSimple("io.lockkit.cdi.DistributedBulkhead");
    static final DotName NON_BLOCKING = DotName.createSimple("io.smallrye.common.annotation.NonBlocking");

    /** The return types a @Locked method waits for its lock without blocking. */
    static final Set<DotName> ASYNCHRONOUS = Set.of(
            DotName.createSimple("io.smallrye.mutiny.Uni"),
            DotName.createSimple("io.smallrye.mutiny.Multi"),
            DotName.createSimple("java.util.concurrent.CompletionStage"),
            DotName.createSimple("java.util.concurrent.CompletableFuture"));

    @BuildStep
    void lockedNonBlocking(ValidationPhaseBuildItem validation, BuildProducer<ValidationErrorBuildItem> errors) {
        List<Throwable> problems = new ArrayList<>();
        for (BeanInfo bean : validation.getContext().beans().classBeans()) {
            ClassInfo type = bean.getImplClazz();
            if (type == null) {
                continue;
            }
            for (DotName binding : List.of(LOCKED, BULKHEAD)) {
                check(type, binding, problems);
            }
        }
        if (!problems.isEmpty()) {
            errors.produce(new ValidationErrorBuildItem(problems));
        }
    }

    /** Adds a problem for each method of {@code type} that waits for {@code binding}'s hold and is {@code @NonBlocking}. */
    private static void check(ClassInfo type, DotName binding, List<Throwable> problems) {
        boolean boundType = type.declaredAnnotation(binding) != null;
        boolean nonBlockingType = type.declaredAnnotation(NON_BLOCKING) != null;
        for (MethodInfo method : type.methods()) {
            if (Modifier.isStatic(method.flags())
                    || Modifier.isPrivate(method.flags())
                    || method.isConstructor()
                    || method.isStaticInitializer()) {
                continue;
            }
            boolean bound = boundType || method.hasDeclaredAnnotation(binding);
            boolean nonBlocking = nonBlockingType || method.hasDeclaredAnnotation(NON_BLOCKING);
            if (bound
                    && nonBlocking
                    && !ASYNCHRONOUS.contains(method.returnType().name())) {
                problems.add(new DeploymentException(message(binding, type, method)));
            }
        }
    }

    static String message(DotName binding, ClassInfo type, MethodInfo method) {
        String parameters = method.parameterTypes().stream()
                .map(t -> t.name().withoutPackagePrefix())
                .collect(Collectors.joining(", "));
        return "lockkit: @" + binding.withoutPackagePrefix() + " method " + type.name() + "." + method.name() + "("
                + parameters + ") is @NonBlocking,"
                + " so it runs on the event loop, where it must not wait for its lock; return Uni, Multi or"
                + " CompletionStage, or run it on a worker thread (remove @NonBlocking, or use @Blocking or"
                + " @RunOnVirtualThread)";
    }
}
