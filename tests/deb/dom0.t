#!/usr/bin/env bash
# The packages `make deb` built (DEB_OUT, default build/deb), on a real
# Debian 12 dom0: a fresh root made by debootstrap, the packages and
# Debian's kernel installed with apt, booted under QEMU as dom0 with
# systemd and Debian's Xen units, where tests/deb/dom0-check starts a PV
# guest from a configuration file as an operator would (a disk image
# through the block hotplug script, a vif on the bridge xenbr0, a
# cpu_topology), pings it, records a trace with xentrace and reads it with
# the packaged pi-stats.
#
# Needs root (chroot, mkfs), the network (Debian's mirror), the boot test's
# QEMU (make qemu) and about 4 GB under build/.
. "$(dirname "$0")/../lib/tap.sh"
set -u
out=${DEB_OUT:-$BUILD/deb}
ls "$out"/xen-utils-*.deb >/dev/null 2>&1 || bail "no packages in $out: make deb first"
[ "$(id -u)" = 0 ] || bail "needs root (chroot)"
qemu=$TOP/build/qemu/bin/qemu-system-x86_64
[ -x "$qemu" ] || bail "no $qemu: make qemu first"

work=$(mktemp -d "$BUILD/test-dom0.XXXXXX")
# shellcheck source=tests/deb/root.sh
. "$(dirname "$0")/root.sh"
deb_roots_init "$work"
r=$work/root
make_root "$r"

# dom0: the packages an operator runs (not the debug, development and
# documentation ones), Debian's kernel, a bridge, busybox for the guest.
mkdir "$r/debs"
for f in "$out"/*.deb; do
    case $(dpkg-deb -f "$f" Package) in
    *-dbg | *-dbgsym | libxen-dev | xen-doc) ;;
    *) cp "$f" "$r/debs/" ;;
    esac
done
in_root "$r" sh -c 'apt-get install -y -q --no-install-recommends /debs/*.deb \
        linux-image-amd64 systemd-sysv udev ifupdown bridge-utils iproute2 \
        iputils-ping busybox-static' > "$work/install.log" 2>&1 ||
    bail "apt-get install in the dom0 root failed: $(tail -n 1 "$work/install.log")"
kver=$(basename "$(ls -d "$r"/lib/modules/*)")

cat > "$r/etc/fstab" <<EOF
/dev/vda / ext4 defaults 0 1
EOF
echo deb-dom0 > "$r/etc/hostname"
cat > "$r/etc/network/interfaces" <<EOF
auto lo
iface lo inet loopback

auto xenbr0
iface xenbr0 inet static
    address 10.0.0.1/24
    bridge_ports none
EOF
# The guest's console kept in /var/log/xen/console: Debian's xen unit
# passes XENCONSOLED_ARGS from /etc/default/xen, and xenconsoled writes
# into that directory without making it.
echo 'XENCONSOLED_ARGS="--log=guest"' >> "$r/etc/default/xen"
mkdir -p "$r/var/log/xen/console"
install -m 755 "$TOP/tests/deb/dom0-check" "$r/usr/local/sbin/deb-dom0-check"
cat > "$r/etc/systemd/system/deb-dom0-check.service" <<EOF
[Unit]
Description=tests/deb/dom0-check
After=xen.service xendomains.service networking.service
Wants=xen.service networking.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/deb-dom0-check

[Install]
WantedBy=multi-user.target
EOF
# No login prompt on the console the check writes to.
ln -s /dev/null "$r/etc/systemd/system/serial-getty@hvc0.service"
ln -s /etc/systemd/system/deb-dom0-check.service \
    "$r/etc/systemd/system/multi-user.target.wants/deb-dom0-check.service"
rm -f "$r/usr/sbin/policy-rc.d" "$r/etc/resolv.conf"

# The guest: Debian's kernel, a ramdisk of busybox and the Xen block and
# network front ends, a 64 MiB disk whose first bytes it reads back.
g=$work/guest
mkdir -p "$g/bin" "$g/sbin" "$g/proc" "$g/sys" "$g/dev"
cp "$r/bin/busybox" "$g/bin/busybox"
# What the kernel runs when the toolstack asks the guest to shut down.
printf '#!/bin/busybox sh\nexec /bin/busybox poweroff -f\n' > "$g/sbin/poweroff"
chmod +x "$g/sbin/poweroff"
for m in xen-blkfront xen-netfront; do
    find "$r/lib/modules/$kver" -name "$m.ko*" -exec cp {} "$g/" \;
done
cat > "$g/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in /xen-blkfront.ko* /xen-netfront.ko*; do
    case $m in *.xz) xz -dc "$m" > /tmp.ko; insmod /tmp.ko ;; *) insmod "$m" ;; esac
done
sleep 2
for c in /sys/devices/system/cpu/cpu[0-9]*; do
    echo "GUEST cpu ${c##*cpu} package $(cat $c/topology/physical_package_id) core $(cat $c/topology/core_id)"
done
echo "GUEST disk $(head -c 16 /dev/xvda)"
ip link set eth0 up && ip addr add 10.0.0.2/24 dev eth0
echo "GUEST up"
while :; do sleep 60; done
EOF
chmod +x "$g/init"
mkdir -p "$r/var/lib/xen/images"
(cd "$g" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$r/var/lib/xen/deb-guest-initrd.img"
{ printf 'deb-guest-disk-1'; head -c $((64 << 20 - 16)) /dev/zero; } > "$r/var/lib/xen/images/deb-guest.img"
cat > "$r/etc/xen/deb-guest.cfg" <<EOF
name = "deb-guest"
type = "pv"
kernel = "/boot/vmlinuz-$kver"
ramdisk = "/var/lib/xen/deb-guest-initrd.img"
extra = "console=hvc0"
memory = 256
vcpus = 4
cpu_topology = "sockets=2,cores=2"
disk = [ "format=raw,vdev=xvda,access=rw,target=/var/lib/xen/images/deb-guest.img" ]
vif = [ "bridge=xenbr0" ]
EOF

# The disk: the root as an ext4 image; the hypervisor and dom0's kernel
# and initramfs as the root has them, loaded by QEMU as GRUB would.
_deb_cleanup
_deb_mounts=()
img=$work/dom0.img
mkfs.ext4 -q -F -L root -d "$r" "$img" 4G > "$work/mkfs.log" 2>&1 ||
    bail "mkfs.ext4 -d of the dom0 root failed: $(tail -n 1 "$work/mkfs.log")"
gzip -dc "$r"/boot/xen-4.17-amd64.gz > "$work/xen"
serial=$work/serial.log
timeout 1500 "$qemu" -accel tcg,thread=single -M pc -cpu max -smp 4 -m 3G \
    -display none -serial "file:$serial" -monitor none -no-reboot \
    -kernel "$work/xen" -append 'console=com1 com1=115200,8n1 dom0_mem=1G,max:1G dom0_max_vcpus=2 smap=0 xsave=0' \
    -initrd "$r/boot/vmlinuz-$kver root=/dev/vda ro console=hvc0,$r/boot/initrd.img-$kver" \
    -drive "file=$img,format=raw,if=virtio" > "$work/qemu.log" 2>&1
rc=$?
cp "$serial" "$BUILD/deb-dom0-serial.log"
# The check's lines; other console output may precede one on its line.
say() { tr -d '\r' < "$serial" | sed -n "s/.*DEB-DOM0: $1 //p" | head -n 1; }
lines() { tr -d '\r' < "$serial" | sed -n "s/.*DEB-DOM0: $1 //p"; }

is "$rc" 0 "QEMU exits when dom0 powers off (serial log: build/deb-dom0-serial.log)"
ok "Xen boots Debian's dom0 and systemd runs the check" grep -q 'DEB-DOM0: start' "$serial"
is "$(say 'unit xen')" active "Debian's xen unit (xenstored, xenconsoled) is active"
is "$(say 'unit xendomains')" active "Debian's xendomains unit is active"
is "$(say 'xl')" "$(dpkg-deb -f "$(ls "$out"/xen-hypervisor-4.17-amd64_*.deb)" Version | sed 's/-[^-]*$//; s/+.*//')" \
    "xl info: the packaged hypervisor's version"
is "$(say bridge)" 10.0.0.1/24 "the bridge xenbr0 from /etc/network/interfaces"
is "$(say create)" 0 "xl create /etc/xen/deb-guest.cfg"
is "$(lines 'GUEST cpu' | sort -n)" "$(printf '%s\n' '0 package 0 core 0' '1 package 0 core 1' \
    '2 package 1 core 0' '3 package 1 core 1')" "the guest sees cpu_topology sockets=2,cores=2"
is "$(say 'GUEST disk')" deb-guest-disk-1 "the guest reads its disk (block hotplug)"
is "$(say vbd)" 4 "the guest's disk is connected"
is "$(say vif)" 4 "the guest's vif is connected"
is "$(say ping)" 0 "dom0 pings the guest over xenbr0 (vif hotplug)"
ok "xentrace recorded a trace" bash -c '[ "$(cut -d" " -f1 <<<"$1")" = 0 ] && [ "$(cut -d" " -f2 <<<"$1")" -gt 0 ]' _ "$(say xentrace)"
is "$(say pi-stats)" 0 "the packaged pi-stats reads it"
is "$(say shutdown)" 0 "xl shutdown -w: the guest powers off when asked"
is "$(say 'guest stopped')" yes "and is gone"
ok "dom0 powers off at the end" grep -q 'DEB-DOM0: end' "$serial"
done_testing
