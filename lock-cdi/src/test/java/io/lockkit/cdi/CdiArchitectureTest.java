package io.lockkit.cdi;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** House rules for lock-cdi, checked on its own main classes (not its tests, not other jars). */
@DisplayName("lock-cdi architecture")
class CdiArchitectureTest {

    private static final String ENGINE = "io.lockkit.cdi.internal.engine..";

    private static final JavaClasses MAIN = new ClassFileImporter()
            .importUrl(Locked.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    @DisplayName("the CDI-free engine uses no jakarta.* (nor javax.transaction, javax.naming or the javax CDI names)")
    void engineUsesNoJakartaTypes() {
        noClasses()
                .that()
                .resideInAPackage(ENGINE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "jakarta..",
                        "javax.transaction..",
                        "javax.naming..",
                        "javax.enterprise..",
                        "javax.inject..",
                        "javax.interceptor..")
                .because("the behaviour of @Locked runs without a container; CDI is a thin layer over it")
                .check(MAIN);
    }

    @Test
    @DisplayName("the engine does not call back into the CDI-facing classes")
    void engineDoesNotUseTheCdiLayer() {
        noClasses()
                .that()
                .resideInAPackage(ENGINE)
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.lockkit.cdi.internal")
                .because("the CDI layer calls the engine, not the other way round (it would bring jakarta.* along)")
                .check(MAIN);
    }

    @Test
    @DisplayName("only io.lockkit.cdi.rest uses Jakarta REST, and nothing else in lock-cdi uses that package")
    void jakartaRestStaysInItsPackage() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.lockkit.cdi.rest..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("jakarta.ws.rs..", "io.lockkit.cdi.rest..")
                .because("Jakarta REST is optional: its mappers are loaded by a server's provider scanning only, so"
                        + " an application without Jakarta REST never loads a class that needs it")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-cdi does not use redis.clients")
    void usesNoRedisClient() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("redis.clients..")
                .because("only lock-jedis talks to Redis through Jedis; lock-cdi configures its builder")
                .check(MAIN);
    }

    @Test
    @DisplayName("lock-cdi uses neither lock-jedis' nor lock-jdbc's internal package (nor any other module's)")
    void usesNoOtherModulesInternals() {
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("io.lockkit..internal..")
                        .and(resideOutsideOfPackage("io.lockkit.cdi.internal..")))
                .because("lock-cdi builds providers through their public builders only")
                .check(MAIN);
    }
}
