package io.lockkit.it;

/** The server tests on Payara Micro 6 (Jakarta EE 10). */
class PayaraMicroIT extends ServerTests {

    PayaraMicroIT() {
        super(ServerKind.PAYARA_MICRO);
    }
}
