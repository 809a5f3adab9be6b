"""What runs on a session start: the hook and the injector's shell, its watchdog, the injection itself."""
