package io.lockkit.spring.integration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-spring-integration, checked on its own main classes. */
@DisplayName("lock-spring-integration architecture")
class SpringIntegrationArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(LockkitLockRegistry.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation());

    @Test
    @DisplayName(
            "lock-spring-integration uses only the JDK, lock-api's caller API, Spring Integration's lock API and JSpecify")
    void usesOnlyItsDeclaredDependencies() {
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "io.lockkit",
                        "io.lockkit.spring.integration..",
                        "org.springframework.integration.support.locks..",
                        "org.springframework.scheduling..",
                        "org.jspecify..")
                .because("it adapts Spring Integration's LockRegistry and nothing else; lock-api's internals and"
                        + " its SPI are not its business")
                .check(MAIN);
    }
}
