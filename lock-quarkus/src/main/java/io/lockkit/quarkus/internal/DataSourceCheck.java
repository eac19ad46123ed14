package io.lockkit.quarkus.internal;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.lang.annotation.Annotation;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;

/**
 * Fails the start when {@code quarkus.lockkit.jdbc.datasource} names a datasource the application
 * does not have, naming the key, the name and the datasources it has; called by {@link
 * LockkitStartup} before lock-cdi's start, whose own message would only say that the name finds no
 * DataSource bean.
 */
// Design notes.
// - The lookup itself is lock-cdi's: a resource name is first a @Named bean, and Quarkus qualifies a
//   named datasource's bean @Named("name") (and @io.quarkus.agroal.DataSource("name")). This check
//   only words the failure in the extension's terms; it stays silent when the plain lockkit key is
//   set (a JNDI name, the user's own business) or the provider is not jdbc.
@Singleton
public class DataSourceCheck {

    static final String KEY = "quarkus.lockkit.jdbc.datasource";

    @Inject
    Config config;

    @Inject
    @Any
    Instance<DataSource> dataSources;

    /**
     * Checks the datasource name, when the provider is jdbc and the name is the extension's key's.
     *
     * @throws IllegalStateException naming the key, the name and the application's datasources
     */
    void check() {
        Optional<String> name = config.getOptionalValue(KEY, String.class);
        boolean jdbc = config.getOptionalValue("lockkit.provider", String.class)
                .map(p -> p.trim().toLowerCase(Locale.ROOT).equals("jdbc"))
                .orElse(false);
        if (name.isEmpty() || !jdbc || !name.equals(config.getOptionalValue("lockkit.jdbc.datasource", String.class))) {
            return;
        }
        if (dataSources.select(NamedLiteral.of(name.get())).isResolvable()) {
            return;
        }
        TreeSet<String> known = new TreeSet<>();
        dataSources.handles().forEach(h -> known.add(nameOf(h.getBean().getQualifiers())));
        throw new IllegalStateException("lockkit: " + KEY + " = '" + name.get()
                + "' names no datasource of the application; its datasources: "
                + (known.isEmpty() ? "none" : String.join(", ", known))
                + ". Configure quarkus.datasource.\"" + name.get() + "\".* or unset " + KEY
                + " to use the default datasource");
    }

    private static String nameOf(Iterable<Annotation> qualifiers) {
        for (Annotation q : qualifiers) {
            if (q instanceof Named named) {
                return '"' + named.value() + '"';
            }
        }
        return "<default>";
    }
}
