package io.lockkit.it.app;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The test application's JAX-RS root: every resource lives under {@code /api}. */
@ApplicationPath("/api")
public class ItApplication extends Application {}
