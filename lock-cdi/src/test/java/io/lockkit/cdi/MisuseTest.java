package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.cdi.internal.engine.LockedMethod;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("misuse of @Locked fails deployment, at the latest the first call, naming the method")
class MisuseTest {

    @BeforeAll
    static void configure() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("a placeholder naming no parameter lists the parameters there are")
    void unknownParameterFailsDeployment() {
        assertDeploymentFails(
                Misuses.UnknownParameter.class,
                "Misuses$UnknownParameter.ship(long)",
                "no parameter 'ordr'",
                "[order]");
    }

    @Test
    @DisplayName("an unclosed brace is a syntax error")
    void malformedTemplateFailsDeployment() {
        assertDeploymentFails(Misuses.UnclosedBrace.class, "UnclosedBrace.ship(long)", "unclosed '{' at index 6");
    }

    @Test
    @DisplayName("a property path step without a getter, is-getter, accessor or record component")
    void unknownPropertyFailsDeployment() {
        assertDeploymentFails(
                Misuses.UnknownProperty.class,
                "UnknownProperty.ship(Order)",
                "order.customer is a " + Templates.Customer.class.getName(),
                "getName()");
    }

    @Test
    @DisplayName("a position beyond the parameters")
    void positionOutOfRangeFailsDeployment() {
        assertDeploymentFails(
                Misuses.PositionOutOfRange.class,
                "PositionOutOfRange.ship(long)",
                "placeholder {2}",
                "has 1 parameter");
    }

    @Test
    @DisplayName("an array, whose string form is its identity, cannot name a lock")
    void arrayPlaceholderFailsDeployment() {
        assertDeploymentFails(Misuses.ArrayParameter.class, "ArrayParameter.ship(long[])", "string form differs");
    }

    @Test
    @DisplayName("a period's time read from an argument that is not a time")
    void periodOfAnArgumentThatIsNoTimeFailsDeployment() {
        assertDeploymentFails(
                Misuses.PeriodOfAString.class,
                "PeriodOfAString.run(String)",
                "{period:PT1S:note}",
                "read from an Instant, ZonedDateTime or OffsetDateTime; note is a java.lang.String");
    }

    @Test
    @DisplayName("a private method, which no interceptor sees")
    void privateMethodFailsDeployment() {
        assertDeploymentFails(
                Misuses.PrivateMethod.class, "PrivateMethod.secret()", "private methods are not intercepted");
    }

    @Test
    @DisplayName("SKIP on a method returning a primitive, which has nothing to return instead")
    void skipOnPrimitiveFailsDeployment() {
        assertDeploymentFails(
                Misuses.SkipOnPrimitive.class, "SkipOnPrimitive.count()", "cannot skip a method returning int");
    }

    @Test
    @DisplayName("a Future result, whose completion the lock cannot follow")
    void plainFutureFailsDeployment() {
        assertDeploymentFails(Misuses.PlainFuture.class, "PlainFuture.run()", "java.util.concurrent.Future");
    }

    @Test
    @DisplayName("a wait in an estimated unit, and a lease that is not positive")
    void badWaitUnitAndLeaseFailDeployment() {
        assertDeploymentFails(Misuses.EstimatedUnit.class, "EstimatedUnit.run()", "waitUnit must be an exact unit");
        assertDeploymentFails(Misuses.ZeroLease.class, "ZeroLease.run()", "leaseTime must be positive");
    }

    @Test
    @DisplayName("a binding carried by a stereotype is checked at deployment too")
    void stereotypeBindingFailsDeployment() {
        assertDeploymentFails(
                Misuses.ThroughStereotype.class, "ThroughStereotype.run(String)", "no parameter 'tenantId'");
    }

    @Test
    @DisplayName("names in a class compiled without -parameters fail deployment and the first call, saying so")
    void missingParameterNamesAreExplained(@TempDir Path dir) throws Exception {
        Class<?> unnamed = compileWithoutParameters(dir);
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(unnamed.getClassLoader());
        try {
            Lockkit.Failure failure =
                    Lockkit.failure(() -> Lockkit.deployment(unnamed).start("misuse-unnamed"));
            assertThat(failure.error()).isInstanceOf(DeploymentException.class);
            assertThat(failure.messages())
                    .anySatisfy(m -> assertThat(m)
                            .contains("Unnamed.ship(long)")
                            .contains("parameter names are not available")
                            .contains("-parameters"));
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
        Method ship = unnamed.getMethod("ship", long.class);
        assertThatThrownBy(() -> LockedMethod.of(ship, ship.getAnnotation(Locked.class)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on generated.Unnamed.ship(long)")
                .hasMessageContaining("use positions such as {0}");
    }

    private static void assertDeploymentFails(Class<?> bean, String... fragments) {
        Lockkit.Failure failure = Lockkit.failure(() -> Lockkit.start("misuse-" + bean.getSimpleName(), bean));
        assertThat(failure.error()).isInstanceOf(DeploymentException.class);
        // Weld's exception names the method; OpenWebBeans logs lock-cdi's message and throws its own.
        assertThat(failure.messages())
                .anySatisfy(m -> assertThat(m)
                        .contains("@Locked on " + bean.getPackageName())
                        .contains(fragments));
    }

    private static Class<?> compileWithoutParameters(Path dir) throws IOException, ClassNotFoundException {
        Path source = dir.resolve("generated/Unnamed.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, """
                package generated;

                @jakarta.enterprise.context.ApplicationScoped
                public class Unnamed {
                    @io.lockkit.cdi.Locked("order:{orderId}")
                    public void ship(long orderId) {
                    }
                }
                """);
        String classPath = location(Locked.class)
                + File.pathSeparator
                + location(jakarta.enterprise.context.ApplicationScoped.class)
                + File.pathSeparator
                + location(jakarta.enterprise.util.Nonbinding.class)
                + File.pathSeparator
                + location(jakarta.interceptor.InterceptorBinding.class);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int status =
                javac.run(null, null, null, "-proc:none", "-cp", classPath, "-d", dir.toString(), source.toString());
        assertThat(status).as("javac exit status").isZero();
        URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, MisuseTest.class.getClassLoader());
        return loader.loadClass("generated.Unnamed");
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
