# A private apt (bash, sourced): its own source list, package lists and
# downloads under one directory; the machine's apt configuration and state
# are never read or written.
#
#   private_apt DIR   makes DIR/lists and DIR/archives and sets the array
#                     apt_opts to the options that make apt-get use
#                     DIR/sources.list (which the caller writes) and them
# shellcheck shell=bash

private_apt() {
    mkdir -p "$1/lists/partial" "$1/archives/partial"
    # shellcheck disable=SC2034 # read by the caller
    apt_opts=(-o "Dir::Etc::SourceList=$1/sources.list"
              -o Dir::Etc::SourceParts=/nonexistent
              -o "Dir::State::Lists=$1/lists"
              -o "Dir::Cache::Archives=$1/archives"
              -o Dir::State::Status=/dev/null
              -o APT::Sandbox::User=root)
}
