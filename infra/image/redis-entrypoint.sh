#!/bin/sh
# The Redis images' entry point (build-redis.sh), as the official image's: arguments that start
# with an option or name a .conf file are redis-server's; anything else runs as given. The
# container runs as the user it is given (the pods' securityContext), so nothing changes owner.
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
exec "$@"
