'''An unprivileged bus client that spoofs ModemManager's signals (a test of
swift-reachability: the radio must not believe them).

usage: bus_spoofer.py ADDRESS PID WHAT

Run as another user (setpriv --reuid 65534). It finds every connection the
process PID has on the bus at ADDRESS (ListNames, GetConnectionUnixProcessID:
what any client may ask) and sends each, straight to its unique name, the
signals WHAT names:

  modem   PropertiesChanged making eth0 an LTE modem port of a modem that
          does not exist and turning Modem/0 into EDGE, InterfacesAdded of
          another modem, InterfacesRemoved of Modem/0
  owner   NameOwnerChanged saying org.freedesktop.ModemManager1 has no owner

Then a call to the bus itself (GetId): its reply comes once the bus has
routed every signal before it, so when this program exits they are queued
at the target. It prints how many signals it sent.
'''

import sys

import dbus
import dbus.lowlevel

SERVICE = 'org.freedesktop.ModemManager1'
MODEM = 'org.freedesktop.ModemManager1.Modem'
MODEM_3GPP = 'org.freedesktop.ModemManager1.Modem.Modem3gpp'
PROPERTIES = 'org.freedesktop.DBus.Properties'
OBJECT_MANAGER = 'org.freedesktop.DBus.ObjectManager'


def signal(path, interface, member, signature, arguments, destination):
    message = dbus.lowlevel.SignalMessage(path, interface, member)
    message.set_destination(destination)
    message.append(signature=signature, *arguments)
    return message


def modem_signals(destination):
    lte_eth0 = {'AccessTechnologies': dbus.UInt32(16384, variant_level=1),
                'Ports': dbus.Array([dbus.Struct(('eth0', dbus.UInt32(2)), signature='su')], signature='(su)',
                                    variant_level=1)}
    return [
        signal('/org/freedesktop/ModemManager1/Modem/7', PROPERTIES, 'PropertiesChanged', 'sa{sv}as',
               [MODEM, lte_eth0, dbus.Array([], signature='s')], destination),
        signal('/org/freedesktop/ModemManager1/Modem/0', PROPERTIES, 'PropertiesChanged', 'sa{sv}as',
               [MODEM, {'AccessTechnologies': dbus.UInt32(16, variant_level=1)}, dbus.Array([], signature='s')],
               destination),
        signal('/org/freedesktop/ModemManager1', OBJECT_MANAGER, 'InterfacesAdded', 'oa{sa{sv}}',
               [dbus.ObjectPath('/org/freedesktop/ModemManager1/Modem/8'), {MODEM: lte_eth0}], destination),
        signal('/org/freedesktop/ModemManager1', OBJECT_MANAGER, 'InterfacesRemoved', 'oas',
               [dbus.ObjectPath('/org/freedesktop/ModemManager1/Modem/0'), [MODEM, MODEM_3GPP]], destination),
    ]


def owner_signals(destination, owner):
    return [signal('/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameOwnerChanged', 'sss',
                   [SERVICE, owner, ''], destination)]


def main():
    address, pid, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    bus = dbus.bus.BusConnection(address)
    daemon = bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus')
    targets = []
    for name in daemon.ListNames(dbus_interface='org.freedesktop.DBus'):
        if name.startswith(':') and name != bus.get_unique_name():
            try:
                if daemon.GetConnectionUnixProcessID(name, dbus_interface='org.freedesktop.DBus') == pid:
                    targets.append(str(name))
            except dbus.exceptions.DBusException:
                pass   # gone meanwhile
    if not targets:
        sys.exit('no connection of pid %d on the bus' % pid)
    owner = str(daemon.GetNameOwner(SERVICE, dbus_interface='org.freedesktop.DBus'))
    sent = 0
    for target in targets:
        messages = modem_signals(target) if what == 'modem' else owner_signals(target, owner)
        for message in messages:
            bus.send_message(message)
            sent += 1
    daemon.GetId(dbus_interface='org.freedesktop.DBus')   # the barrier: everything before it is routed
    print(sent)


main()
