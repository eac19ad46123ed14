package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;

/** {@code @Locked} on the type: every business method is locked, each under its own default name. */
@ApplicationScoped
@Locked(waitTime = 5)
public class ClassLevelLocked {

    public String first() {
        return Templates.current();
    }

    public String second() {
        return Templates.current();
    }

    @Locked("override:{id}")
    public String overridden(int id) {
        return Templates.current();
    }
}
