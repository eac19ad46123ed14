package io.lockkit.examples.spring;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** This instance's name in responses and journals: {@code example.instance}, or the process id when unset. */
@Component
public class Instance {

    private final String name;

    public Instance(@Value("${example.instance:}") String name) {
        this.name = name.isBlank() ? Long.toString(ProcessHandle.current().pid()) : name;
    }

    public String name() {
        return name;
    }
}
