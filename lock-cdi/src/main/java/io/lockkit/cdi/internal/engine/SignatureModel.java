package io.lockkit.cdi.internal.engine;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What template binding and declaration checks need to know of a method, so one set of rules runs
 * on reflection (at the first call) and on the CDI language model (at deployment, where Quarkus has
 * no loaded classes).
 *
 * @param <T> the model's type handle
 */
public interface SignatureModel<T> {

    /** {@code com.acme.OrderService.ship(Order, int)}, for messages. */
    String describe();

    int parameterCount();

    /** Parameter names; {@code argN} placeholders when the class was compiled without {@code -parameters}. */
    List<String> parameterNames();

    /** Whether {@link #parameterNames()} are the source names. */
    boolean parameterNamesKnown();

    T parameterType(int index);

    /** The property {@code name} of values of {@code type}, or null when it has none. */
    @Nullable
    Property<T> property(T type, String name);

    /** Whether values of {@code type} render differently each time (arrays), so they cannot name a lock. */
    boolean unstableString(T type);

    /** The type's name for messages. */
    String typeName(T type);

    /** The fully qualified name of the method's return type ({@code void}, {@code int}, {@code java.util.Optional}). */
    String returnTypeName();

    /** For a {@code CompletionStage} return type: the fully qualified name of its type argument, or null. */
    @Nullable
    String returnTypeArgumentName();

    /** Whether the return type is {@code java.util.concurrent.Future} or a subtype that is not a {@code CompletionStage}. */
    boolean returnsPlainFuture();

    /** Whether the return type is a {@code CompletionStage} (or subtype). */
    boolean returnsCompletionStage();

    /** A readable property: its name, its declared type, and (for reflection) the accessor to call. */
    record Property<T>(String name, T type, @Nullable Object accessor) {}

    /** Standard property lookup order for a step {@code x}: {@code getX()}, {@code isX()} (boolean only), {@code x()}. */
    static List<String> accessorNames(String property) {
        String cap = Character.toUpperCase(property.charAt(0)) + property.substring(1);
        return List.of("get" + cap, "is" + cap, property);
    }
}
