package io.lockkit.it;

/** The server tests on Open Liberty (Jakarta EE 10 features with concurrent-3.0). */
class OpenLibertyIT extends ServerTests {

    OpenLibertyIT() {
        super(ServerKind.OPEN_LIBERTY);
    }
}
