package io.lockkit.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.lockkit.cdi.internal.engine.DeploymentWalk;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.se.SeContainerInitializer;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.weld.lite.extension.translator.LiteExtensionTranslator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The portable extension (Weld, servers) and the build compatible one (Quarkus; here through Weld's
 * translator, which runs its methods for real on Weld SE, see {@link UnskippedLockkitExtension}) walk the same declarations through one engine, and
 * so resolve the same bindings and fail the deployment with the same messages.
 */
@DisplayName("both CDI extensions resolve and report alike")
class OneWalkTest {

    private static final Class<?>[] BEANS = {
        LockedInterceptor.class,
        BulkheadInterceptor.class,
        LockFactoryHolder.class,
        Walks.Bulkheads.class,
        Walks.Shipping.class,
        Walks.Tenants.class,
        Walks.Providers.class
    };

    /** A problem as both extensions word it: a @Locked method's, or the providers'. */
    private static final Pattern PROBLEM = Pattern.compile("(@(?:Locked|DistributedBulkhead) on [^\\n]*?"
            + "(?=\\s*(?:@Locked on |@DistributedBulkhead on |lockkit: several|\\n|$)))"
            + "|(lockkit: several LockProvider beans[^\\n]*?yourself)");

    @BeforeAll
    static void weldOnly() {
        assumeFalse(
                SeContainerInitializer.newInstance().getClass().getName().startsWith("org.apache.openwebbeans."),
                "Weld's translator runs the build compatible extension; OpenWebBeans has none");
    }

    @Test
    @DisplayName("overloads told apart by binary type names, overrides, inherited and stereotype bindings")
    void sameBindingsAndMessages() {
        Outcome portable = deploy(new LockkitPortableExtension());
        Collection<Class<? extends BuildCompatibleExtension>> buildCompatibleOnes =
                Set.of(UnskippedLockkitExtension.class);
        Outcome buildCompatible =
                deploy(new LiteExtensionTranslator(buildCompatibleOnes, OneWalkTest.class.getClassLoader()));

        assertThat(portable.bindings().stream().map(OneWalkTest::methodAndTemplate))
                .contains(
                        "io.lockkit.cdi.internal.Walks$Shipping.ship(io.lockkit.cdi.internal.Walks$Order): order:{order.id}",
                        "io.lockkit.cdi.internal.Walks$Shipping.ship(io.lockkit.cdi.internal.Walks$Parcel$Order):"
                                + " order:{order.id}",
                        "io.lockkit.cdi.internal.Walks$Shipping.ship(io.lockkit.cdi.internal.Walks$Parcel$Order, int):"
                                + " batch:{1}",
                        "io.lockkit.cdi.internal.Walks$Shipping.cancel(long): order:{order.id}",
                        "io.lockkit.cdi.internal.Walks$BaseShipping.audit(java.lang.String): audit:{entry}",
                        "io.lockkit.cdi.internal.Walks$Tenants.run(java.lang.String): tenant:{tenantId}",
                        "io.lockkit.cdi.internal.Walks$Bulkheads.browse(): catalog",
                        "io.lockkit.cdi.internal.Walks$Bulkheads.browse(): catalog-readers");
        assertThat(portable.problems())
                .containsExactlyInAnyOrder(
                        "@Locked on io.lockkit.cdi.internal.Walks$Shipping.ship(Order): lock name template"
                                + " 'order:{order.id}', placeholder {order.id}: order is a"
                                + " io.lockkit.cdi.internal.Walks$Parcel$Order, which has no getId(), isId() or id()"
                                + " accessor or record component 'id'",
                        "@Locked on io.lockkit.cdi.internal.Walks$Shipping.cancel(long): lock name template"
                                + " 'order:{order.id}', placeholder {order.id}: the method has no parameter 'order';"
                                + " its parameters are [id]",
                        "@Locked on io.lockkit.cdi.internal.Walks$Shipping.secret(): private methods are not"
                                + " intercepted, so the lock would never be taken",
                        "@Locked on io.lockkit.cdi.internal.Walks$Tenants.run(String): lock name template"
                                + " 'tenant:{tenantId}', placeholder {tenantId}: the method has no parameter"
                                + " 'tenantId'; its parameters are [tenant]",
                        "@DistributedBulkhead on io.lockkit.cdi.internal.Walks$Bulkheads.noCapacity(): capacity must"
                                + " be at least 1; was 0",
                        "@DistributedBulkhead on io.lockkit.cdi.internal.Walks$Bulkheads.noPermits(): permits must"
                                + " be at least 1; was 0",
                        "@DistributedBulkhead on io.lockkit.cdi.internal.Walks$Bulkheads.tooManyPermits(): permits 3"
                                + " exceed the capacity 2, so no call could ever run",
                        "@DistributedBulkhead on io.lockkit.cdi.internal.Walks$Bulkheads.quote(): capacity 3 differs"
                                + " from the capacity 2 that io.lockkit.cdi.internal.Walks$Bulkheads.order() declares"
                                + " for the same semaphore 'partner'; give every declaration of a name one capacity",
                        "lockkit: several LockProvider beans with the @Default qualifier: producer method"
                                + " io.lockkit.cdi.internal.Walks$Providers.first(), producer method"
                                + " io.lockkit.cdi.internal.Walks$Providers.second(); keep one, or produce the"
                                + " DistributedLockFactory yourself");
        assertThat(buildCompatible.bindings()).isEqualTo(portable.bindings());
        assertThat(buildCompatible.problems()).isEqualTo(portable.problems());
    }

    @Test
    @DisplayName("the build compatible extension run here has exactly LockkitExtension's extension methods")
    void theRunExtensionIsLockkitsMethodForMethod() {
        assertThat(extensionMethods(UnskippedLockkitExtension.class))
                .isNotEmpty()
                .isEqualTo(extensionMethods(LockkitExtension.class));
    }

    /** Each public method as name, parameter types and annotations. */
    private static Set<String> extensionMethods(Class<?> extension) {
        Set<String> methods = new TreeSet<>();
        for (Method m : extension.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())) {
                methods.add(m.getName() + Arrays.toString(m.getParameterTypes()) + Arrays.toString(m.getAnnotations()));
            }
        }
        return methods;
    }

    /** {@code com.acme.Service.run(java.lang.String): template} of a binding's log line. */
    private static String methodAndTemplate(String binding) {
        Matcher m = Pattern.compile("(.*): LockedValues\\[binding=[^,]*, template=([^,]*),.*")
                .matcher(binding);
        assertThat(m.matches()).as(binding).isTrue();
        return m.group(1) + ": " + m.group(2);
    }

    private record Outcome(List<String> bindings, List<String> problems) {}

    private static Outcome deploy(Extension extension) {
        Logger logger = Logger.getLogger(DeploymentWalk.class.getName());
        List<String> bindings = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                bindings.add(record.getMessage().substring("lockkit: ".length()));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Level previous = logger.getLevel();
        logger.setLevel(Level.FINE);
        logger.addHandler(handler);
        Throwable failure;
        try {
            failure = catchThrowable(() -> SeContainerInitializer.newInstance()
                    .disableDiscovery()
                    .addBeanClasses(BEANS)
                    .addExtensions(extension)
                    .initialize()
                    .close());
        } finally {
            logger.removeHandler(handler);
            logger.setLevel(previous);
        }
        assertThat(failure).isInstanceOf(DeploymentException.class);
        List<String> problems = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            Matcher m = PROBLEM.matcher(String.valueOf(t.getMessage()));
            while (m.find()) {
                String found = m.group().strip();
                if (!problems.contains(found)) {
                    problems.add(found);
                }
            }
        }
        problems.sort(null);
        bindings.sort(null);
        return new Outcome(bindings, problems);
    }
}
