package io.lockkit.it;

/** The server tests on WildFly Preview (Jakarta EE 11). */
class WildFlyPreviewIT extends ServerTests {

    WildFlyPreviewIT() {
        super(ServerKind.WILDFLY_PREVIEW);
    }
}
