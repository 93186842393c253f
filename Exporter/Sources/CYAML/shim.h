// libyaml (Debian's libyaml-dev, pkg-config yaml-0.1): the exporter's YAML
// configuration is read with its event parser (YAMLDocument.swift).
#include <yaml.h>
