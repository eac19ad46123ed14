package io.lockkit.cdi.internal;

import io.lockkit.cdi.internal.engine.ClassFiles;
import io.lockkit.cdi.internal.engine.SignatureModel;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import jakarta.enterprise.lang.model.declarations.MethodInfo;
import jakarta.enterprise.lang.model.declarations.ParameterInfo;
import jakarta.enterprise.lang.model.declarations.RecordComponentInfo;
import jakarta.enterprise.lang.model.types.Type;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * {@link SignatureModel} over the CDI language model, for checks at deployment: in Quarkus these run
 * at build time on the Jandex index, where no application class is loaded.
 */
final class LangModelSignature implements SignatureModel<Type> {

    /** Bits of class-file access flags the language model may pass on: bridge and synthetic methods. */
    static final int BRIDGE_OR_SYNTHETIC = 0x0040 | 0x1000;

    /** Return types known not to be futures, so their supertypes need not be looked up. */
    private static final Set<String> NOT_FUTURES = Set.of(
            "void",
            "boolean",
            "byte",
            "char",
            "short",
            "int",
            "long",
            "float",
            "double",
            "java.lang.Object",
            "java.lang.String",
            "java.lang.Integer",
            "java.lang.Long",
            "java.lang.Boolean",
            "java.util.Optional",
            "java.util.List",
            "java.util.Set",
            "java.util.Map",
            "java.util.concurrent.CompletionStage",
            "java.util.concurrent.CompletableFuture");

    private final MethodInfo method;
    private final List<ParameterInfo> parameters;

    LangModelSignature(MethodInfo method) {
        this.method = method;
        this.parameters = method.parameters();
    }

    static String describe(MethodInfo method) {
        return method.declaringClass().name() + "." + method.name()
                + method.parameters().stream()
                        .map(p -> simpleName(p.type()))
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    @Override
    public String describe() {
        return describe(method);
    }

    @Override
    public int parameterCount() {
        return parameters.size();
    }

    @Override
    public List<String> parameterNames() {
        return parameters.stream().map(ParameterInfo::name).toList();
    }

    @Override
    public boolean parameterNamesKnown() {
        if (parameters.isEmpty()) {
            return true;
        }
        // Without -parameters Weld's model names them arg0, arg1, ... (ParameterInfo.name()).
        boolean named = false;
        for (int i = 0; i < parameters.size(); i++) {
            named |= !parameters.get(i).name().equals("arg" + i);
        }
        // Quarkus' model may have them from debug information, which reflection at run time lacks.
        return named
                && ClassFiles.hasMethodParameters(
                                method.declaringClass().name(),
                                Thread.currentThread().getContextClassLoader())
                        .orElse(true);
    }

    @Override
    public Type parameterType(int index) {
        return parameters.get(index).type();
    }

    @Override
    public @Nullable Property<Type> property(Type type, String name) {
        ClassInfo c = classOf(type);
        if (c == null) {
            return null;
        }
        Collection<RecordComponentInfo> components;
        try {
            components = c.isRecord() ? c.recordComponents() : List.of();
        } catch (UnsupportedOperationException e) {
            // Weld 5.1's language model (Jakarta EE 10 servers) says "Records not yet supported":
            // the component accessor is a public method of the same name, which the search below finds.
            components = List.of();
        }
        for (RecordComponentInfo component : components) {
            if (component.name().equals(name)) {
                return new Property<>(name, component.type(), null);
            }
        }
        List<String> names = SignatureModel.accessorNames(name);
        for (int i = 0; i < names.size(); i++) {
            MethodInfo found = null;
            for (MethodInfo m : c.methods()) {
                if (m.name().equals(names.get(i))
                        && m.parameters().isEmpty()
                        && !m.isStatic()
                        && !m.isConstructor()
                        && !m.returnType().isVoid()
                        && (m.modifiers() & BRIDGE_OR_SYNTHETIC) == 0
                        && !m.declaringClass().name().equals("java.lang.Object")
                        && (found == null || m.declaringClass().name().equals(c.name()))) {
                    found = m;
                }
            }
            if (found != null && (i != 1 || isBoolean(found.returnType()))) {
                return new Property<>(name, found.returnType(), null);
            }
        }
        return null;
    }

    private static boolean isBoolean(Type t) {
        return t.isPrimitive() ? t.asPrimitive().name().equals("boolean") : "java.lang.Boolean".equals(className(t));
    }

    @Override
    public boolean unstableString(Type type) {
        return type.isArray();
    }

    @Override
    public String typeName(Type type) {
        String name = className(type);
        return name != null ? name : simpleName(type);
    }

    @Override
    public String returnTypeName() {
        Type r = method.returnType();
        if (r.isVoid()) {
            return "void";
        }
        if (r.isPrimitive()) {
            return r.asPrimitive().name();
        }
        String name = className(r);
        return name != null ? name : simpleName(r);
    }

    @Override
    public @Nullable String returnTypeArgumentName() {
        Type r = method.returnType();
        if (r.isParameterizedType() && r.asParameterizedType().typeArguments().size() == 1) {
            return className(r.asParameterizedType().typeArguments().get(0));
        }
        return null;
    }

    @Override
    public boolean returnsPlainFuture() {
        Set<String> supertypes = supertypes();
        return supertypes.contains("java.util.concurrent.Future")
                && !supertypes.contains("java.util.concurrent.CompletionStage");
    }

    @Override
    public boolean returnsCompletionStage() {
        return supertypes().contains("java.util.concurrent.CompletionStage");
    }

    /** Names of the return type and all its supertypes (empty for types known not to be futures). */
    private Set<String> supertypes() {
        String name = returnTypeName();
        Set<String> names = new HashSet<>();
        if (NOT_FUTURES.contains(name)) {
            names.add(name);
            if (name.startsWith("java.util.concurrent.C")) {
                names.add("java.util.concurrent.CompletionStage");
            }
            return names;
        }
        ClassInfo start = classOf(method.returnType());
        ArrayDeque<ClassInfo> todo = new ArrayDeque<>();
        if (start != null) {
            todo.add(start);
        }
        try {
            while (!todo.isEmpty()) {
                ClassInfo c = todo.poll();
                if (names.add(c.name())) {
                    if (c.superClassDeclaration() != null) {
                        todo.add(c.superClassDeclaration());
                    }
                    todo.addAll(c.superInterfacesDeclarations());
                }
            }
        } catch (RuntimeException e) {
            // A supertype outside the index: judge by what was seen; the first call checks again with reflection.
        }
        return names;
    }

    static @Nullable ClassInfo classOf(Type type) {
        if (type.isClass()) {
            return type.asClass().declaration();
        }
        if (type.isParameterizedType()) {
            return type.asParameterizedType().genericClass().declaration();
        }
        if (type.isTypeVariable() && !type.asTypeVariable().bounds().isEmpty()) {
            return classOf(type.asTypeVariable().bounds().get(0));
        }
        return null;
    }

    private static @Nullable String className(Type type) {
        if (type.isClass()) {
            return type.asClass().declaration().name();
        }
        if (type.isParameterizedType()) {
            return type.asParameterizedType().genericClass().declaration().name();
        }
        return null;
    }

    static String simpleName(Type type) {
        if (type.isPrimitive()) {
            return type.asPrimitive().name();
        }
        if (type.isArray()) {
            return simpleName(type.asArray().componentType()) + "[]";
        }
        if (type.isTypeVariable()) {
            return type.asTypeVariable().name();
        }
        if (type.isClass()) {
            return type.asClass().declaration().simpleName();
        }
        if (type.isParameterizedType()) {
            return type.asParameterizedType().genericClass().declaration().simpleName();
        }
        return type.isVoid() ? "void" : "?";
    }
}
