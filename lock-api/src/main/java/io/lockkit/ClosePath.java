package io.lockkit;

import io.lockkit.spi.Release;
import java.util.List;

/**
 * Loads, once per class loader, the classes a factory's close needs that using the factory may
 * not have loaded. An application server may refuse to load an application's classes once it
 * began to undeploy it (Payara: "This web container has not yet been started"), and lock-cdi
 * closes its factory only then: a class first asked for by the close would stop it half way,
 * leaving the leaderships, holds and connections open. {@code CloseAfterTheLoaderStopsTest} finds
 * any class the close asks for that is not loaded here.
 */
final class ClosePath {

    // Two are the switch maps javac makes for a switch over another class's enum; another
    // compiler names them otherwise, and then they are not needed or not found (the test guards).
    private static final List<String> CLASSES = List.of(
            Conditions.class.getName(),
            Leadership.RevocationReason.class.getName(),
            LockObserver.LossCause.class.getName(),
            Release.Outcome.class.getName(),
            "io.lockkit.Holds$1",
            "io.lockkit.OwnedLockHandle$1");

    private ClosePath() {}

    /** Loads and initializes the classes; a name this build has not is passed over. */
    static void load() {
        ClassLoader loader = ClosePath.class.getClassLoader();
        for (String name : CLASSES) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException e) {
                // Not made by this compiler: nothing to load.
            }
        }
    }
}
