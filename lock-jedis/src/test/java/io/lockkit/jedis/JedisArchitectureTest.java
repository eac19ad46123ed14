package io.lockkit.jedis;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-jedis, checked on its own main classes (not its tests, not other jars). */
@DisplayName("lock-jedis architecture")
class JedisArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(JedisLockProvider.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation());

    @Test
    @DisplayName("lock-jedis does not use lock-jdbc at all")
    void usesNoJdbcProvider() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.lockkit.jdbc..")
                .because("the two backends are independent of each other")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-jedis uses no other module's internal package")
    void usesNoOtherModulesInternals() {
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("io.lockkit..internal..")
                        .and(resideOutsideOfPackage("io.lockkit.jedis.internal..")))
                .because("a module's internal package is its own business")
                .check(MAIN);
    }
}
