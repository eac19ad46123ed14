package io.lockkit.cdi.internal;

import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.LockMode;
import io.lockkit.cdi.WhenBusy;
import io.lockkit.cdi.internal.engine.DeclarationModel;
import io.lockkit.cdi.internal.engine.LockedValues;
import io.lockkit.cdi.internal.engine.SignatureModel;
import jakarta.enterprise.lang.model.AnnotationInfo;
import jakarta.enterprise.lang.model.AnnotationMember;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import jakarta.enterprise.lang.model.declarations.MethodInfo;
import jakarta.enterprise.lang.model.types.Type;
import java.lang.reflect.Modifier;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** {@link DeclarationModel} over the CDI language model, for the build compatible extension. */
final class LangModelDeclarations implements DeclarationModel<ClassInfo, MethodInfo, AnnotationInfo> {

    static final LangModelDeclarations INSTANCE = new LangModelDeclarations();

    private LangModelDeclarations() {}

    @Override
    public String className(ClassInfo type) {
        return type.name();
    }

    @Override
    public @Nullable ClassInfo superclass(ClassInfo type) {
        return type.superClassDeclaration();
    }

    @Override
    public Collection<MethodInfo> declaredMethods(ClassInfo type) {
        // methods() also lists the superclasses' and interfaces' methods
        return type.methods().stream()
                .filter(m -> !m.isConstructor() && m.declaringClass().name().equals(type.name()))
                .toList();
    }

    @Override
    public String methodName(MethodInfo method) {
        return method.name();
    }

    @Override
    public List<String> parameterTypeNames(MethodInfo method) {
        return method.parameters().stream().map(p -> erasure(p.type())).toList();
    }

    /** The binary name of the type's erasure, as reflection's {@code Class.getTypeName()} gives it. */
    static String erasure(Type type) {
        if (type.isPrimitive()) {
            return type.asPrimitive().name();
        }
        if (type.isArray()) {
            return erasure(type.asArray().componentType()) + "[]";
        }
        if (type.isClass()) {
            return type.asClass().declaration().name();
        }
        if (type.isParameterizedType()) {
            return type.asParameterizedType().genericClass().declaration().name();
        }
        if (type.isTypeVariable() && !type.asTypeVariable().bounds().isEmpty()) {
            return erasure(type.asTypeVariable().bounds().get(0));
        }
        return type.isVoid() ? "void" : "java.lang.Object";
    }

    @Override
    public boolean isStatic(MethodInfo method) {
        return method.isStatic();
    }

    @Override
    public boolean isPrivate(MethodInfo method) {
        return Modifier.isPrivate(method.modifiers());
    }

    @Override
    public boolean isBridgeOrSynthetic(MethodInfo method) {
        return (method.modifiers() & LangModelSignature.BRIDGE_OR_SYNTHETIC) != 0;
    }

    @Override
    public Collection<AnnotationInfo> classAnnotations(ClassInfo type) {
        return type.annotations();
    }

    @Override
    public Collection<AnnotationInfo> methodAnnotations(MethodInfo method) {
        return method.annotations();
    }

    @Override
    public String annotationName(AnnotationInfo annotation) {
        return annotation.name();
    }

    @Override
    public @Nullable ClassInfo annotationType(AnnotationInfo annotation) {
        try {
            return annotation.declaration();
        } catch (RuntimeException e) {
            return null; // an annotation type outside the model (Quarkus' index): not a stereotype of the application
        }
    }

    @Override
    public LockedValues lockedValues(AnnotationInfo locked) {
        // As LockedValues.of reads the annotation: a bulkhead has no holdAtLeast nor mode, @Locked no permits.
        boolean bulkhead = locked.name().equals(DistributedBulkhead.class.getName());
        return new LockedValues(
                bulkhead ? LockedValues.BULKHEAD : LockedValues.LOCKED,
                member(locked, "value").asString(),
                member(locked, "waitTime").asLong(),
                ChronoUnit.valueOf(member(locked, "waitUnit").asEnumConstant()),
                member(locked, "leaseTime").asLong(),
                ChronoUnit.valueOf(member(locked, "leaseUnit").asEnumConstant()),
                WhenBusy.valueOf(member(locked, "whenBusy").asEnumConstant()),
                bulkhead ? 0 : member(locked, "holdAtLeast").asLong(),
                bulkhead
                        ? ChronoUnit.SECONDS
                        : ChronoUnit.valueOf(member(locked, "holdAtLeastUnit").asEnumConstant()),
                bulkhead
                        ? LockMode.EXCLUSIVE
                        : LockMode.valueOf(member(locked, "mode").asEnumConstant()),
                bulkhead ? member(locked, "capacity").asInt() : 0,
                bulkhead ? member(locked, "permits").asInt() : 0,
                bulkhead && member(locked, "fair").asBoolean());
    }

    private static AnnotationMember member(AnnotationInfo binding, String name) {
        AnnotationMember member = binding.member(name);
        if (member != null) {
            return member;
        }
        throw new IllegalStateException("the container's language model omits the member " + name + " of " + binding);
    }

    @Override
    public String leaderOfName(AnnotationInfo leaderOf) {
        return member(leaderOf, "value").asString();
    }

    @Override
    public SignatureModel<?> signature(MethodInfo method) {
        return new LangModelSignature(method);
    }
}
