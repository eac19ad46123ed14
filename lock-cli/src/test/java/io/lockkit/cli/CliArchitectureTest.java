package io.lockkit.cli;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-cli, checked on its own main classes (not its tests, not other jars). */
@DisplayName("lock-cli architecture")
class CliArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(LockkitCli.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    @DisplayName("lock-cli uses no module's internal package: only the public API of lock-api")
    void usesNoInternals() {
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("io.lockkit..internal.."))
                .because("the CLI is a client of the public API like any application")
                .check(MAIN);
    }

    @Test
    @DisplayName(
            "lock-cli reaches the provider SPI only to build a provider from its factory: it inspects and releases through DistributedLockFactory")
    void usesTheFactoryNotTheSpi() {
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("io.lockkit.spi..")
                        .and(not(simpleName("LockProviderFactory")
                                .or(simpleName("ProviderSettings"))
                                .or(simpleName("ProviderSetting"))
                                .or(simpleName("ProviderEnvironment"))
                                .or(simpleName("LockProvider")) // handed to DistributedLockFactory.builder
                                .or(simpleName("ProviderFactories")) // finds the factory of a URI
                                .or(simpleName("Causes"))))) // failure messages with their root cause
                .because("the factory's inspection API is what operators' tools are meant to use")
                .check(MAIN);
    }

    @Test
    @DisplayName(
            "lock-cli uses no provider's classes (it finds them by their factories' URI schemes), nor lock-cdi or the test kit")
    void usesNoOtherModules() {
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("io.lockkit.jdbc..")
                        .or(resideInAPackage("io.lockkit.jedis.."))
                        .or(resideInAPackage("redis.clients.."))
                        .or(resideInAPackage("io.lockkit.cdi.."))
                        .or(resideInAPackage("io.lockkit.testkit..")))
                .check(MAIN);
    }
}
