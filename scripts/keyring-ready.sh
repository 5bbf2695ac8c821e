#!/usr/bin/env bash
# Waits until the session's Secret Service is ready for the keychain tests: gnome-keyring owns
# org.freedesktop.secrets on this D-Bus session, its "default" alias is the login collection,
# and that collection is unlocked. Until the daemon started by `gnome-keyring-daemon --unlock`
# owns the name, a client's call makes D-Bus activate a second daemon whose login collection is
# locked, and every keychain call then fails with "unlock prompt was dismissed".
# NameHasOwner asks the bus itself, so the wait never activates anything.
set -euo pipefail
call() { dbus-send --session --print-reply "$@" 2>/dev/null | tail -n 1; }
for _ in $(seq 100); do
  if [[ "$(call --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets)" == *true* ]] &&
    [[ "$(call --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias string:default)" == *collection/login* ]] &&
    [[ "$(call --dest=org.freedesktop.secrets /org/freedesktop/secrets/collection/login org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked)" == *false* ]]; then
    echo "keyring ready: login collection unlocked and default"
    exit 0
  fi
  sleep 0.1
done
echo "the Secret Service did not become ready (name owned, login collection default and unlocked)" >&2
exit 1
