package io.lockkit.cdi;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Qualifier;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * Qualifies the {@link LeadershipGranted} and {@link LeadershipRevoked} events of one leadership
 * declared in configuration ({@code lockkit.leadership.<name>.lease}), so an observer can watch
 * one name; an observer without it sees every declared leadership's events.
 *
 * <pre>{@code
 * void onLead(@Observes @LeaderOf("reports") LeadershipGranted granted) { ... }
 * }</pre>
 */
@Qualifier
@Documented
@Retention(RUNTIME)
@Target({FIELD, METHOD, PARAMETER, TYPE})
public @interface LeaderOf {

    /** The leadership's name, as in its configuration keys. */
    String value();

    /** The qualifier as a value, for {@code Event.select} and {@code Instance.select}. */
    final class Literal extends AnnotationLiteral<LeaderOf> implements LeaderOf {

        private static final long serialVersionUID = 1L;

        /** The leadership's name. */
        private final String value;

        private Literal(String value) {
            this.value = value;
        }

        /**
         * The qualifier of the leadership {@code name}.
         *
         * @throws IllegalArgumentException when {@code name} is null or empty
         */
        public static Literal of(String name) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("name must not be null or empty");
            }
            return new Literal(name);
        }

        @Override
        public String value() {
            return value;
        }
    }
}
