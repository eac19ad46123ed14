package io.lockkit.it;

/** The server tests on GlassFish 7 (Jakarta EE 10, a domain started with asadmin). */
class GlassFishIT extends ServerTests {

    GlassFishIT() {
        super(ServerKind.GLASSFISH);
    }
}
