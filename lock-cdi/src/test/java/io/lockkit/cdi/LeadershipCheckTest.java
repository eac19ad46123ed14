package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.lockkit.cdi.internal.UnskippedLockkitExtension;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.se.SeContainerInitializer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.jboss.weld.lite.extension.translator.LiteExtensionTranslator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The names of injected leaderships are collected by the deployment walk and checked once, by it:
 * the portable extension (Weld, OpenWebBeans) and the build compatible one (Quarkus; here through
 * Weld's translator, see {@link UnskippedLockkitExtension}) fail the deployment with one message,
 * before any bean has used the leadership.
 */
@DisplayName("@Inject @LeaderOf(name) Leadership: one check of the name, the deployment walk's, in both extensions")
class LeadershipCheckTest {

    private static final String PAYROLL = "lockkit: @LeaderOf(\"payroll\") Leadership is injected, but the"
            + " configuration declares no leadership 'payroll': set lockkit.leadership.payroll.lease";

    @BeforeEach
    void configure() {
        Leaders.EarlyUser.RAN.set(false);
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.leadership.reports.lease", "500ms"));
    }

    @AfterEach
    void clearConfig() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("the portable extension: an undeclared name no bean has used fails the deployment")
    void portableExtensionFailsTheDeployment() {
        assertFailsWithTheOneMessage(
                () -> Lockkit.start("check-portable", Leaders.Nightly.class, Leaders.Undeclared.class));
    }

    @Test
    @DisplayName("the build compatible extension: the same name fails the start with the same message")
    void buildCompatibleExtensionFailsTheStart() {
        assumeFalse(
                Lockkit.OPENWEBBEANS, "Weld's translator runs the build compatible extension; OpenWebBeans has none");
        assertFailsWithTheOneMessage(() -> buildCompatible(Leaders.Nightly.class, Leaders.Undeclared.class));
    }

    @Test
    @DisplayName("both extensions fail before a start-up observer that injects the undeclared name runs")
    void bothFailBeforeAStartupObserverUsesIt() {
        assertFailsWithTheOneMessage(() -> Lockkit.start("check-early", Leaders.EarlyUser.class));
        assertThat(Leaders.EarlyUser.RAN)
                .as("the portable extension's start-up observer ran")
                .isFalse();
        assumeFalse(
                Lockkit.OPENWEBBEANS, "Weld's translator runs the build compatible extension; OpenWebBeans has none");
        assertFailsWithTheOneMessage(() -> buildCompatible(Leaders.EarlyUser.class));
        assertThat(Leaders.EarlyUser.RAN)
                .as("the build compatible extension's start-up observer ran")
                .isFalse();
    }

    @Test
    @DisplayName("the build compatible extension: a declared name is injected, and leads")
    void buildCompatibleExtensionInjectsADeclaredName() throws InterruptedException {
        assumeFalse(
                Lockkit.OPENWEBBEANS, "Weld's translator runs the build compatible extension; OpenWebBeans has none");
        try (SeContainer app = buildCompatible(Leaders.Nightly.class)) {
            Leaders.Nightly nightly = app.select(Leaders.Nightly.class).get();
            assertThat(nightly.leadership().name()).isEqualTo("reports");
            assertThat(nightly.leadership().awaitTerm(Duration.ofSeconds(10))).isPresent();
            assertThat(nightly.runIfLeader()).isTrue();
        }
    }

    /** The start fails, naming payroll's key, and says nothing of the declared leadership. */
    private static void assertFailsWithTheOneMessage(Supplier<SeContainer> start) {
        List<String> messages = Lockkit.failure(start).messages();
        assertThat(messages).anySatisfy(m -> assertThat(m).contains(PAYROLL));
        assertThat(messages).noneSatisfy(m -> assertThat(m).contains("leadership 'reports'"));
    }

    /** lock-cdi's beans and {@code beans}, with the build compatible extension only. */
    private static SeContainer buildCompatible(Class<?>... beans) {
        return SeContainerInitializer.newInstance()
                .disableDiscovery()
                .addBeanClasses(Lockkit.LIBRARY_BEANS)
                .addBeanClasses(beans)
                .addExtensions(new LiteExtensionTranslator(
                        Set.of(UnskippedLockkitExtension.class), LeadershipCheckTest.class.getClassLoader()))
                .initialize();
    }
}
