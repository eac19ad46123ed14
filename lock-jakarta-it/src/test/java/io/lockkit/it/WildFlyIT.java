package io.lockkit.it;

/** The server tests on WildFly standard (Jakarta EE 10). */
class WildFlyIT extends ServerTests {

    WildFlyIT() {
        super(ServerKind.WILDFLY);
    }
}
