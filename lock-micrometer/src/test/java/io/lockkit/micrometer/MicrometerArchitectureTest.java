package io.lockkit.micrometer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-micrometer, checked on its own main classes (not its tests, not other jars). */
@DisplayName("lock-micrometer architecture")
class MicrometerArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(LockMetrics.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    @DisplayName("lock-micrometer uses only the JDK, lock-api's public packages, Micrometer and JSpecify")
    void usesOnlyItsDeclaredDependencies() {
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "io.lockkit",
                        "io.lockkit.spi",
                        "io.lockkit.micrometer..",
                        "io.micrometer..",
                        "org.jspecify..")
                .because("Micrometer is its only dependency besides lock-api, whose internals are not its business")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-micrometer uses no other module's internal package")
    void usesNoOtherModulesInternals() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.lockkit..internal..")
                .because("a module's internal package is its own business")
                .check(MAIN);
    }
}
