package io.lockkit.shedlock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-shedlock, checked on its own main classes. */
@DisplayName("lock-shedlock architecture")
class ShedLockArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(LockkitLockProvider.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation());

    @Test
    @DisplayName("lock-shedlock uses only the JDK, lock-api's caller API, ShedLock's core API and JSpecify")
    void usesOnlyItsDeclaredDependencies() {
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "io.lockkit",
                        "io.lockkit.shedlock..",
                        "net.javacrumbs.shedlock.core..",
                        "org.jspecify..")
                .because("it adapts ShedLock's LockProvider and nothing else; lock-api's internals and its SPI are"
                        + " not its business")
                .check(MAIN);
    }
}
