package io.lockkit.cdi.internal.engine;

import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the deployment walk needs to know of classes, methods, injection points' qualifiers and
 * annotations, so one walk runs on
 * reflection (the portable extension) and on the CDI language model (the build compatible one, where
 * Quarkus has no loaded classes).
 *
 * @param <C> the model's class handle
 * @param <M> the model's method handle
 * @param <A> the model's annotation handle
 */
public interface DeclarationModel<C, M, A> {

    /** The binary name ({@code com.acme.Outer$Inner}). */
    String className(C type);

    /** The superclass, or null for {@code java.lang.Object} and interfaces. */
    @Nullable
    C superclass(C type);

    /** The methods {@code type} itself declares (no constructors, no initializers), private and static ones too. */
    Collection<M> declaredMethods(C type);

    String methodName(M method);

    /** The erasures of the parameter types, as binary names ({@code java.lang.String[]}, {@code com.acme.Outer$Inner}). */
    List<String> parameterTypeNames(M method);

    boolean isStatic(M method);

    boolean isPrivate(M method);

    /** Bridge and synthetic methods, which the compiler made and no binding can be on. */
    boolean isBridgeOrSynthetic(M method);

    /** The annotations declared on {@code type} itself (not inherited ones). */
    Collection<A> classAnnotations(C type);

    /** The annotations declared on {@code method}. */
    Collection<A> methodAnnotations(M method);

    /** The binary name of the annotation's type. */
    String annotationName(A annotation);

    /** The annotation's type, as a class of this model, or null when the model cannot say. */
    @Nullable
    C annotationType(A annotation);

    /** The members of an annotation whose type is {@code io.lockkit.cdi.Locked} or {@code io.lockkit.cdi.DistributedBulkhead}. */
    LockedValues lockedValues(A locked);

    /** The leadership name of an annotation whose type is {@code io.lockkit.cdi.LeaderOf}. */
    String leaderOfName(A leaderOf);

    /** The method's signature, for the declaration rules. */
    SignatureModel<?> signature(M method);
}
