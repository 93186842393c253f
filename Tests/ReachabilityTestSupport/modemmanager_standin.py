'''A ModemManager stand-in for swift-reachability's tests (python3-dbusmock).

It owns org.freedesktop.ModemManager1 on the bus it is started on and
publishes what ModemManager publishes there: an ObjectManager at
/org/freedesktop/ModemManager1 whose objects are modems
(/org/freedesktop/ModemManager1/Modem/N, with the Modem, Modem3gpp, Simple and
Signal interfaces), and bearers (/org/freedesktop/ModemManager1/Bearer/N, which
the real daemon exports beside its ObjectManager, not in it). Every property
of those interfaces exists, with the type ModemManager's own introspection
data gives it (read from MM_INTROSPECTION_DIR, by default the directory
Debian's modemmanager-dev installs) and a zero value, unless the test sets it.

The test drives it through org.freedesktop.DBus.Mock (busctl call ...):
  AddModem(u index, a{sv} modem, a{sv} modem3gpp)   InterfacesAdded
  SetModem(u index, s interface, a{sv} properties)   PropertiesChanged, as sent
                                                    (a wrong type stays wrong)
  RemoveModem(u index)                               InterfacesRemoved
  AddBearer(u modem, u index, s interface)           the bearer, then the
                                                    modem's Bearers changed
  AddSilentBearer(u modem, u index, s interface)     the same, but the bearer
                                                    answers no GetAll (a hung
                                                    daemon): it holds each;
                                                    the first held makes the
                                                    modem's SignalQuality 77
                                                    (the test's sign it came)
  AnswerFirstBearerCall()                            answers the first held
                                                    GetAll, with the bearer's
                                                    properties
'''

import os
import xml.etree.ElementTree as ElementTree

import dbus

from dbusmock import MOCK_IFACE, mockobject

BUS_NAME = 'org.freedesktop.ModemManager1'
MAIN_OBJ = '/org/freedesktop/ModemManager1'
MAIN_IFACE = 'org.freedesktop.ModemManager1'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

MODEM = 'org.freedesktop.ModemManager1.Modem'
MODEM_3GPP = 'org.freedesktop.ModemManager1.Modem.Modem3gpp'
MODEM_INTERFACES = [MODEM, MODEM_3GPP, 'org.freedesktop.ModemManager1.Modem.Simple',
                    'org.freedesktop.ModemManager1.Modem.Signal']
BEARER = 'org.freedesktop.ModemManager1.Bearer'


def introspected(interface):
    '''The (name, signature) of each property of `interface`.'''
    directory = os.environ.get('MM_INTROSPECTION_DIR', '/usr/share/dbus-1/interfaces')
    tree = ElementTree.parse(os.path.join(directory, interface + '.xml'))
    for node in tree.iter('interface'):
        if node.get('name') == interface:
            return [(p.get('name'), p.get('type')) for p in node.iter('property')]
    raise KeyError(interface)


def split(signature):
    '''The complete types of a signature, in order.'''
    types, i = [], 0
    while i < len(signature):
        j = i
        while signature[j] == 'a':
            j += 1
        if signature[j] in '({':
            close = {'(': ')', '{': '}'}[signature[j]]
            depth = 0
            while True:
                if signature[j] in '({':
                    depth += 1
                elif signature[j] in ')}':
                    depth -= 1
                    if depth == 0 and signature[j] == close:
                        break
                j += 1
        types.append(signature[i:j + 1])
        i = j + 1
    return types


def zero(signature, variant_level=0):
    '''A zero value of D-Bus type `signature`.'''
    kw = {'variant_level': variant_level}
    if signature.startswith('a{'):
        return dbus.Dictionary({}, signature=signature[2:-1], **kw)
    if signature.startswith('a'):
        return dbus.Array([], signature=signature[1:], **kw)
    if signature.startswith('('):
        return dbus.Struct([zero(t) for t in split(signature[1:-1])], signature=signature[1:-1], **kw)
    basic = {'s': lambda: dbus.String('', **kw), 'o': lambda: dbus.ObjectPath('/', **kw),
             'u': lambda: dbus.UInt32(0, **kw), 'i': lambda: dbus.Int32(0, **kw),
             'b': lambda: dbus.Boolean(False, **kw), 'y': lambda: dbus.Byte(0, **kw),
             'd': lambda: dbus.Double(0, **kw), 'x': lambda: dbus.Int64(0, **kw),
             't': lambda: dbus.UInt64(0, **kw), 'q': lambda: dbus.UInt16(0, **kw),
             'n': lambda: dbus.Int16(0, **kw), 'v': lambda: dbus.String('', variant_level=variant_level + 1)}
    return basic[signature]()


def properties(interface, given=None):
    '''Every property of `interface`, zero, with `given` over them (as given).'''
    props = {name: zero(signature, 1) for name, signature in introspected(interface)}
    props.update(given or {})
    return props


def load(mock, _parameters):
    mock.AddMethods(MAIN_IFACE, [('ScanDevices', '', '', ''), ('SetLogging', 's', '', '')])
    mock.AddProperty(MAIN_IFACE, 'Version', dbus.String('1.20.4 (stand-in)', variant_level=1))


def modem_path(index):
    return '/org/freedesktop/ModemManager1/Modem/%d' % index


@dbus.service.method(MOCK_IFACE, in_signature='ua{sv}a{sv}', out_signature='o')
def AddModem(self, index, modem, modem3gpp):
    path = modem_path(index)
    self.AddObject(path, MODEM, properties(MODEM, modem), [])
    for interface in MODEM_INTERFACES[1:]:
        mockobject.get_object(path).AddProperties(
            interface, properties(interface, modem3gpp if interface == MODEM_3GPP else None))
    self.object_manager_emit_added(path)
    return path


@dbus.service.method(MOCK_IFACE, in_signature='usa{sv}', out_signature='')
def SetModem(self, index, interface, props):
    # As UpdateProperties, whose re-wrapping cannot take a struct (SignalQuality's
    # (ub)): the values are kept and sent as they came, each already a variant.
    modem = mockobject.get_object(modem_path(index))
    for name in props:
        if name not in modem.props.get(interface, {}):
            raise dbus.exceptions.DBusException('property %s not found' % name, name=interface + '.NoSuchProperty')
    modem.props[interface].update(props)
    modem.EmitSignal(dbus.PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as', [interface, props, []])


@dbus.service.method(MOCK_IFACE, in_signature='u', out_signature='')
def RemoveModem(self, index):
    path = modem_path(index)
    self.object_manager_emit_removed(path)
    self.RemoveObject(path)


class SilentBearer(dbus.service.Object):
    '''A bearer whose GetAll is held until the test answers it.'''

    def __init__(self, connection, path, props, modem):
        super().__init__(connection, path)
        self.props = props
        self.modem = modem
        # dbusmock's method lookup, which replaces dbus-python's for every
        # object, looks here first; none: dbus-python's decorated methods.
        self.methods = {}
        self.interface = BEARER

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature='s', out_signature='a{sv}',
                         async_callbacks=('reply', 'error'))
    def GetAll(self, interface, reply, error):
        HELD.append((reply, self.props))
        if len(HELD) == 1:
            quality = {'SignalQuality': dbus.Struct((dbus.UInt32(77), True), signature='ub', variant_level=1)}
            self.modem.props[MODEM].update(quality)
            self.modem.EmitSignal(dbus.PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as', [MODEM, quality, []])


# The GetAll calls silent bearers hold (reply callbacks), and the bearers themselves.
HELD = []
SILENT = []


@dbus.service.method(MOCK_IFACE, in_signature='uus', out_signature='o')
def AddSilentBearer(self, modem, index, interface):
    path = '/org/freedesktop/ModemManager1/Bearer/%d' % index
    owner = mockobject.get_object(modem_path(modem))
    SILENT.append(SilentBearer(self.connection, path, properties(BEARER, {
        'Interface': dbus.String(interface, variant_level=1),
        'Connected': dbus.Boolean(True, variant_level=1)}), owner))
    bearers = list(owner.GetAll(MODEM)['Bearers']) + [dbus.ObjectPath(path)]
    owner.UpdateProperties(MODEM, {'Bearers': dbus.Array(bearers, signature='o', variant_level=1)})
    return path


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='u')
def AnswerFirstBearerCall(self):
    '''Answers the first held GetAll; returns how many were held.'''
    held = len(HELD)
    if HELD:
        reply, props = HELD[0]
        HELD[0] = (lambda *_: None, props)   # answered once
        reply(dbus.Dictionary(props, signature='sv'))
    return held


@dbus.service.method(MOCK_IFACE, in_signature='uus', out_signature='o')
def AddBearer(self, modem, index, interface):
    path = '/org/freedesktop/ModemManager1/Bearer/%d' % index
    self.AddObject(path, BEARER, properties(BEARER, {
        'Interface': dbus.String(interface, variant_level=1),
        'Connected': dbus.Boolean(True, variant_level=1)}), [])
    owner = mockobject.get_object(modem_path(modem))
    bearers = list(owner.GetAll(MODEM)['Bearers']) + [dbus.ObjectPath(path)]
    owner.UpdateProperties(MODEM, {'Bearers': dbus.Array(bearers, signature='o', variant_level=1)})
    return path
