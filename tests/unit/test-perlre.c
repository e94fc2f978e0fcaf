/*
 * bot/perlre: Perl regexes of MAINTAINERS N:/K: lines, by PCRE2.
 *
 * real_patterns holds every N: and K: pattern of Linux 6.1's MAINTAINERS
 * (K: also as get_maintainer.pl searches diff lines, "^[+-].*" before
 * it) and subjects taken from the kernel's paths and sources with the
 * answer Perl 5.36 gave for `$s =~ m/$p/x`: perlre must give the same
 * answer for each.  constructs does the same for more of the syntax,
 * with random subjects Perl judged, and beyond_posix for what the POSIX
 * translation perfbot used before refused (look-around, back references,
 * \A, possessive quantifiers, (?s)...) and for the places PCRE2 10.42
 * reads otherwise than Perl ("\Q", "{,3}").  The tables were generated
 * by running Perl; they are literals here so that the test needs neither
 * Perl nor the kernel.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "perlre.h"

struct row {
	const char *pattern;
	const char *subject[6];
	int match[6];
	int n;
};

static const struct row real_patterns[] = {
	{ "owl",
	  { "Documentation/devicetree/bindings/clock/actions,owl-cmu.txt", "Documentation/devicetree/bindings/dma/owl-dma.yaml" },
	  { 1, 1 }, 2 },
	{ "allwinner",
	  { "Documentation/devicetree/bindings/arm/sunxi/allwinner,sun4i-a10-mbus.yaml", "Documentation/devicetree/bindings/arm/sunxi/allwinner,sun6i-a31-cpuconfig.yaml", "Documentation/ABI/stable/syscalls", "Documentation/RCU/Design/Memory-Ordering/TreeRCU-callback-invocation.svg" },
	  { 1, 1, 0, 0 }, 4 },
	{ "sun[x456789]i",
	  { "Documentation/arm/sunxi/", "Documentation/arm/sunxi.rst", "Documentation/ABI/testing/sysfs-bus-iio-chemical-sunrise-co2", "Documentation/ABI/testing/sysfs-devices-sun" },
	  { 1, 1, 0, 0 }, 4 },
	{ "sun50i",
	  { "Documentation/devicetree/bindings/bus/allwinner,sun50i-a64-de2.yaml", "Documentation/devicetree/bindings/dma/allwinner,sun50i-a64-dma.yaml", "Documentation/ABI/testing/sysfs-bus-iio-chemical-sunrise-co2", "Documentation/ABI/testing/sysfs-devices-sun" },
	  { 1, 1, 0, 0 }, 4 },
	{ "meson",
	  { "Documentation/devicetree/bindings/arm/amlogic/amlogic,meson-gx-ao-secure.yaml", "Documentation/devicetree/bindings/arm/amlogic/amlogic,meson-mx-secbus2.yaml", "Documentation/admin-guide/namespaces/", "Documentation/admin-guide/namespaces/compatibility-list.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "aspeed",
	  { "Documentation/ABI/stable/sysfs-driver-aspeed-vuart", "Documentation/ABI/testing/sysfs-driver-aspeed-uart-routing", "Documentation/devicetree/bindings/arm/bcm/raspberrypi,bcm2835-firmware.yaml", "Documentation/devicetree/bindings/display/panel/raspberrypi,7inch-touchscreen.yaml" },
	  { 1, 1, 0, 0 }, 4 },
	{ "clps711x",
	  { "Documentation/devicetree/bindings/clock/clps711x-clock.txt", "Documentation/devicetree/bindings/display/cirrus,clps711x-fb.txt", "arch/arm/boot/dts/nspire-clp.dts", "arch/s390/boot/sclp_early_core.c" },
	  { 1, 1, 0, 0 }, 4 },
	{ "digicolor",
	  { "Documentation/devicetree/bindings/arm/digicolor.yaml", "Documentation/devicetree/bindings/i2c/i2c-digicolor.txt", "Documentation/admin-guide/media/dvb-usb-digitv-cardlist.rst", "Documentation/crypto/api-digest.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "imx",
	  { "Documentation/admin-guide/media/imx.rst", "Documentation/admin-guide/media/imx6q-sabreauto.dot" },
	  { 1, 1 }, 2 },
	{ "mxs",
	  { "Documentation/devicetree/bindings/dma/fsl-mxs-dma.txt", "Documentation/devicetree/bindings/gpio/gpio-mxs.yaml" },
	  { 1, 1 }, 2 },
	{ "lpc18xx",
	  { "Documentation/devicetree/bindings/phy/phy-lpc18xx-usb-otg.txt", "Documentation/devicetree/bindings/watchdog/lpc18xx-wdt.txt", "Documentation/ABI/testing/debugfs-olpc", "Documentation/core-api/dma-isa-lpc.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "lpc32xx",
	  { "Documentation/devicetree/bindings/arm/nxp/lpc32xx.yaml", "Documentation/devicetree/bindings/gpio/gpio_lpc32xx.txt", "Documentation/ABI/testing/debugfs-olpc", "Documentation/core-api/dma-isa-lpc.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "mtk",
	  { "Documentation/devicetree/bindings/ata/ahci-mtk.txt", "Documentation/devicetree/bindings/dma/mtk-hsdma.txt" },
	  { 1, 1 }, 2 },
	{ "mt[678]",
	  { "Documentation/ABI/testing/sysfs-bus-iio-adc-mt6360", "Documentation/devicetree/bindings/arm/mediatek/mediatek,mt7622-pcie-mirror.yaml" },
	  { 1, 1 }, 2 },
	{ "mediatek",
	  { "+obj-$(CONFIG_MEDIATEK_GE_PHY)\t+= mediatek-ge.o", "+\t  will be called pwm-mediatek.", "+AFLAGS_kexec_relocate.o := -mcmodel=medany $(call cc-option,-mno-relax)", "+# cmodel=medany and notrace when patching early" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*mediatek",
	  { "+obj-$(CONFIG_MEDIATEK_GE_PHY)\t+= mediatek-ge.o", "+\t  will be called pwm-mediatek.", "+AFLAGS_kexec_relocate.o := -mcmodel=medany $(call cc-option,-mno-relax)", "+# cmodel=medany and notrace when patching early" },
	  { 1, 1, 0, 0 }, 4 },
	{ "at91",
	  { "Documentation/ABI/testing/sysfs-platform-at91", "Documentation/devicetree/bindings/arm/atmel-at91.yaml", "arch/arm/boot/dts/imx7d-meerkat96.dts" },
	  { 1, 1, 0 }, 3 },
	{ "atmel",
	  { "Documentation/devicetree/bindings/arm/atmel-at91.yaml", "Documentation/devicetree/bindings/arm/atmel-sysregs.txt", "Documentation/networking/atm.rst", "Documentation/networking/batman-adv.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "sparx5",
	  { "Documentation/devicetree/bindings/arm/microchip,sparx5.yaml", "Documentation/devicetree/bindings/clock/microchip,sparx5-dpll.yaml", "Documentation/RCU/Design/Requirements/ReadersPartitionGP1.svg", "Documentation/admin-guide/namespaces/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "milbeaut",
	  { "Documentation/devicetree/bindings/arm/socionext/milbeaut.yaml", "Documentation/devicetree/bindings/clock/milbeaut-clock.yaml", "Documentation/devicetree/bindings/mfd/twl-family.txt", "Documentation/powerpc/cpu_families.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "oxnas",
	  { "Documentation/devicetree/bindings/arm/oxnas.txt", "Documentation/devicetree/bindings/clock/oxnas,stdclk.txt" },
	  { 1, 1 }, 2 },
	{ "rockchip",
	  { "Documentation/devicetree/bindings/arm/rockchip/", "Documentation/devicetree/bindings/arm/rockchip.yaml", "Documentation/ABI/obsolete/procfs-i8k", "Documentation/ABI/obsolete/sysfs-driver-hid-roccat-arvo" },
	  { 1, 1, 0, 0 }, 4 },
	{ "exynos",
	  { "Documentation/devicetree/bindings/clock/samsung,exynos-audss-clock.yaml", "Documentation/devicetree/bindings/clock/samsung,exynos-clock.yaml", "arch/mips/boot/dts/xilfpga/nexys4ddr.dts" },
	  { 1, 1, 0 }, 3 },
	{ "s3c2410",
	  { "Documentation/devicetree/bindings/clock/samsung,s3c2410-clock.txt", "Documentation/devicetree/bindings/i2c/samsung,s3c2410-i2c.yaml", "Documentation/arm/samsung-s3c24xx/", "Documentation/arm/samsung-s3c24xx/cpufreq.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "s3c64xx",
	  { "Documentation/devicetree/bindings/clock/samsung,s3c64xx-clock.txt", "arch/arm/boot/dts/s3c64xx-pinctrl.dtsi", "Documentation/arm/samsung-s3c24xx/", "Documentation/arm/samsung-s3c24xx/cpufreq.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "s5pv210",
	  { "Documentation/devicetree/bindings/clock/samsung,s5pv210-audss-clock.yaml", "Documentation/devicetree/bindings/clock/samsung,s5pv210-clock.yaml", "Documentation/devicetree/bindings/media/s5p-cec.txt", "Documentation/devicetree/bindings/media/s5p-mfc.txt" },
	  { 1, 1, 0, 0 }, 4 },
	{ "sprd",
	  { "Documentation/devicetree/bindings/arm/sprd/", "Documentation/devicetree/bindings/arm/sprd/sprd.yaml", "arch/arm/boot/dts/exynos5250-spring.dts", "arch/arm64/boot/dts/exynos/exynos7-espresso.dts" },
	  { 1, 1, 0, 0 }, 4 },
	{ "sc27xx",
	  { "Documentation/devicetree/bindings/input/sprd,sc27xx-vibrator.yaml", "Documentation/devicetree/bindings/leds/leds-sc27xx-bltc.txt", "Documentation/devicetree/bindings/iio/adc/sprd,sc2720-adc.yaml", "Documentation/devicetree/bindings/iio/adc/ti,tsc2046.yaml" },
	  { 1, 1, 0, 0 }, 4 },
	{ "sc2731",
	  { "Documentation/devicetree/bindings/power/supply/sc2731-charger.yaml", "Documentation/devicetree/bindings/regulator/sprd,sc2731-regulator.txt", "Documentation/devicetree/bindings/iio/adc/sprd,sc2720-adc.yaml", "Documentation/devicetree/bindings/iio/adc/ti,tsc2046.yaml" },
	  { 1, 1, 0, 0 }, 4 },
	{ "stm32",
	  { "Documentation/ABI/testing/sysfs-bus-iio-adc-stm32", "Documentation/ABI/testing/sysfs-bus-iio-dfsdm-adc-stm32", "Documentation/ABI/testing/sysfs-bus-coresight-devices-stm", "Documentation/ABI/testing/sysfs-class-stm" },
	  { 1, 1, 0, 0 }, 4 },
	{ "stm",
	  { "Documentation/ABI/testing/sysfs-bus-coresight-devices-stm", "Documentation/ABI/testing/sysfs-bus-iio-adc-stm32" },
	  { 1, 1 }, 2 },
	{ "visconti",
	  { "Documentation/devicetree/bindings/gpio/toshiba,gpio-visconti.yaml", "Documentation/devicetree/bindings/net/toshiba,visconti-dwmac.yaml", "Documentation/ABI/stable/sysfs-hypervisor-xen", "Documentation/ABI/testing/sysfs-hypervisor-xen" },
	  { 1, 1, 0, 0 }, 4 },
	{ "uniphier",
	  { "Documentation/devicetree/bindings/arm/socionext/socionext,uniphier-system-cache.yaml", "Documentation/devicetree/bindings/arm/socionext/uniphier.yaml", "Documentation/admin-guide/unicode.rst", "Documentation/dev-tools/kunit/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "mps2",
	  { "Documentation/devicetree/bindings/serial/arm,mps2-uart.txt", "Documentation/devicetree/bindings/timer/arm,mps2-timer.txt", "Documentation/devicetree/bindings/clock/samsung,s2mps11.yaml", "Documentation/devicetree/bindings/mfd/mps,mp2629.yaml" },
	  { 1, 1, 0, 0 }, 4 },
	{ "zynq",
	  { "Documentation/ABI/stable/sysfs-driver-firmware-zynqmp", "Documentation/devicetree/bindings/clock/xlnx,zynqmp-clk.txt" },
	  { 1, 1 }, 2 },
	{ "xilinx",
	  { "Documentation/devicetree/bindings/arm/xilinx.yaml", "Documentation/devicetree/bindings/dma/xilinx/", "Documentation/devicetree/bindings/mips/img/xilfpga.txt", "Documentation/devicetree/bindings/xillybus/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "(?:\\b|_)bpf(?:\\b|_)",
	  { "-struct bpf_prog_array;", "-enum cgroup_bpf_attach_type {", " \tNOT_KGDB_BREAK = 0,", "-\t\t\t\t   arch_kgdb_ops.gdb_bpt_instr," },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*(?:\\b|_)bpf(?:\\b|_)",
	  { "-struct bpf_prog_array;", "-enum cgroup_bpf_attach_type {", " \tNOT_KGDB_BREAK = 0,", "-\t\t\t\t   arch_kgdb_ops.gdb_bpt_instr," },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcmbca",
	  { "Documentation/devicetree/bindings/arm/bcm/brcm,bcmbca.yaml", "arch/arm64/boot/dts/broadcom/bcmbca/", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?47622",
	  { "arch/arm/boot/dts/bcm47622.dtsi", "arch/arm/boot/dts/bcm947622.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?4912",
	  { "arch/arm64/boot/dts/broadcom/bcmbca/bcm4912-asus-gt-ax6000.dts", "arch/arm64/boot/dts/broadcom/bcmbca/bcm4912.dtsi", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?63138",
	  { "Documentation/devicetree/bindings/arm/bcm/brcm,bcm63138.txt", "Documentation/devicetree/bindings/leds/leds-bcm63138.yaml", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?63146",
	  { "arch/arm64/boot/dts/broadcom/bcmbca/bcm63146.dtsi", "arch/arm64/boot/dts/broadcom/bcmbca/bcm963146.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?63148",
	  { "arch/arm/boot/dts/bcm63148.dtsi", "arch/arm/boot/dts/bcm963148.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?63158",
	  { "arch/arm64/boot/dts/broadcom/bcmbca/bcm63158.dtsi", "arch/arm64/boot/dts/broadcom/bcmbca/bcm963158.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?63178",
	  { "arch/arm/boot/dts/bcm63178.dtsi", "arch/arm/boot/dts/bcm963178.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?6756",
	  { "arch/arm/boot/dts/bcm6756.dtsi", "arch/arm/boot/dts/bcm96756.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?6813",
	  { "arch/arm64/boot/dts/broadcom/bcmbca/bcm6813.dtsi", "arch/arm64/boot/dts/broadcom/bcmbca/bcm96813.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?6846",
	  { "arch/arm/boot/dts/bcm6846.dtsi", "arch/arm/boot/dts/bcm96846.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?6855",
	  { "arch/arm/boot/dts/bcm6855.dtsi", "arch/arm/boot/dts/bcm96855.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?6856",
	  { "arch/arm64/boot/dts/broadcom/bcmbca/bcm6856.dtsi", "arch/arm64/boot/dts/broadcom/bcmbca/bcm96856.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?6858",
	  { "arch/arm64/boot/dts/broadcom/bcmbca/bcm6858.dtsi", "arch/arm64/boot/dts/broadcom/bcmbca/bcm96858.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm[9]?6878",
	  { "arch/arm/boot/dts/bcm6878.dtsi", "arch/arm/boot/dts/bcm96878.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm2711",
	  { "Documentation/devicetree/bindings/clock/brcm,bcm2711-dvp.yaml", "Documentation/devicetree/bindings/display/brcm,bcm2711-hdmi.yaml", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm283*",
	  { "Documentation/devicetree/bindings/arm/bcm/bcm2835.yaml", "Documentation/devicetree/bindings/arm/bcm/raspberrypi,bcm2835-firmware.yaml", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "raspberrypi",
	  { "Documentation/devicetree/bindings/arm/bcm/raspberrypi,bcm2835-firmware.yaml", "Documentation/devicetree/bindings/display/panel/raspberrypi,7inch-touchscreen.yaml", "Documentation/admin-guide/ras.rst", "Documentation/devicetree/bindings/ata/pata-arasan.txt" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm281*",
	  { "Documentation/devicetree/bindings/arm/bcm/bcm2835.yaml", "Documentation/devicetree/bindings/arm/bcm/raspberrypi,bcm2835-firmware.yaml", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm113*",
	  { "Documentation/devicetree/bindings/arm/bcm/brcm,bcm11351.yaml", "Documentation/devicetree/bindings/pinctrl/brcm,bcm11351-pinctrl.txt", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm216*",
	  { "Documentation/devicetree/bindings/arm/bcm/brcm,bcm21664.yaml", "Documentation/devicetree/bindings/power/reset/brcm,bcm21664-resetmgr.txt", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "kona",
	  { "Documentation/devicetree/bindings/clock/brcm,kona-ccu.txt", "Documentation/devicetree/bindings/gpio/brcm,kona-gpio.txt", "Documentation/ABI/obsolete/sysfs-driver-hid-roccat-koneplus", "Documentation/ABI/obsolete/sysfs-driver-hid-roccat-konepure" },
	  { 1, 1, 0, 0 }, 4 },
	{ "brcmstb",
	  { "Documentation/ABI/testing/sysfs-platform-brcmstb-gisb-arb", "Documentation/ABI/testing/sysfs-platform-brcmstb-memc", "Documentation/devicetree/bindings/arm/bcm/brcm,bcm11351.yaml", "Documentation/devicetree/bindings/arm/bcm/brcm,bcm21664.yaml" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm7038",
	  { "Documentation/devicetree/bindings/interrupt-controller/brcm,bcm7038-l1-intc.yaml", "Documentation/devicetree/bindings/pwm/brcm,bcm7038-pwm.yaml", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm7120",
	  { "Documentation/devicetree/bindings/interrupt-controller/brcm,bcm7120-l2-intc.yaml", "drivers/irqchip/irq-bcm7120-l2.c", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "iproc",
	  { "Documentation/devicetree/bindings/clock/brcm,iproc-clocks.yaml", "Documentation/devicetree/bindings/dma/brcm,iproc-sba.txt", "arch/m68k/amiga/chipram.c", "arch/mips/fw/sni/sniprom.c" },
	  { 1, 1, 0, 0 }, 4 },
	{ "cygnus",
	  { "Documentation/devicetree/bindings/arm/bcm/brcm,cygnus.yaml", "Documentation/devicetree/bindings/phy/brcm,cygnus-pcie-phy.yaml" },
	  { 1, 1 }, 2 },
	{ "bcm[-_]nsp",
	  { "arch/arm/boot/dts/bcm-nsp-ax.dtsi", "arch/arm/boot/dts/bcm-nsp.dtsi", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm9113*",
	  { "arch/arm/boot/dts/bcm911360_entphn.dts", "arch/arm/boot/dts/bcm911360k.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm9583*",
	  { "arch/arm/boot/dts/bcm958300k.dts", "arch/arm/boot/dts/bcm958305k.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm9585*",
	  { "arch/arm/boot/dts/bcm958300k.dts", "arch/arm/boot/dts/bcm958305k.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm9586*",
	  { "arch/arm/boot/dts/bcm958300k.dts", "arch/arm/boot/dts/bcm958305k.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm988312",
	  { "arch/arm/boot/dts/bcm988312hr.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 0, 0 }, 3 },
	{ "bcm583*",
	  { "arch/arm64/boot/dts/broadcom/bcm58305.dtsi", "arch/arm64/boot/dts/broadcom/bcm58522.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm585*",
	  { "arch/arm64/boot/dts/broadcom/bcm58305.dtsi", "arch/arm64/boot/dts/broadcom/bcm58522.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm586*",
	  { "arch/arm64/boot/dts/broadcom/bcm58305.dtsi", "arch/arm64/boot/dts/broadcom/bcm58522.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 1, 0, 0 }, 4 },
	{ "bcm88312",
	  { "arch/arm64/boot/dts/broadcom/bcm88312.dts", "Documentation/ABI/testing/sysfs-bus-bcma", "Documentation/devicetree/bindings/arm/bcm/" },
	  { 1, 0, 0 }, 3 },
	{ "hr2",
	  { "Documentation/devicetree/bindings/arm/bcm/brcm,hr2.yaml", "arch/arm/boot/dts/bcm-hr2.dtsi" },
	  { 1, 1 }, 2 },
	{ "stingray",
	  { "Documentation/devicetree/bindings/arm/bcm/brcm,stingray.yaml", "Documentation/devicetree/bindings/phy/brcm,stingray-usb-phy.txt", "Documentation/ABI/testing/", "Documentation/ABI/testing/configfs-acpi" },
	  { 1, 1, 0, 0 }, 4 },
	{ "csky",
	  { "Documentation/devicetree/bindings/csky/", "Documentation/devicetree/bindings/csky/cpus.txt" },
	  { 1, 1 }, 2 },
	{ "^[+-].*csky",
	  { "+obj-y += arch/csky/kernel/", " \tCPUHP_AP_CSKY_TIMER_STARTING,", " \tCPUHP_AP_PERF_CSKY_ONLINE," },
	  { 1, 0, 0 }, 3 },
	{ "cros_ec",
	  { "drivers/iio/accel/cros_ec_accel_legacy.c", "drivers/iio/common/cros_ec_sensors/", "Documentation/ABI/testing/debugfs-cros-ec", "Documentation/ABI/testing/sysfs-bus-iio-cros-ec" },
	  { 1, 1, 0, 0 }, 4 },
	{ "cros-ec",
	  { "Documentation/ABI/testing/debugfs-cros-ec", "Documentation/ABI/testing/sysfs-bus-iio-cros-ec", "Documentation/admin-guide/hw-vuln/cross-thread-rsb.rst", "Documentation/admin-guide/kdump/gdbmacros.txt" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b(?i:clang|llvm)\\b",
	  { "+ * Clang Control Flow Integrity (CFI) support.", "+ * Clang Control Flow Integrity (CFI) type definitions.", "-\t\tBCM54XX_SHD_INTF_SEL_GBIC;", "+#define BCM54XX_SHD_INTF_SEL_GBIC\t0x06" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b(?i:clang|llvm)\\b",
	  { "+ * Clang Control Flow Integrity (CFI) support.", "+ * Clang Control Flow Integrity (CFI) type definitions.", "-\t\tBCM54XX_SHD_INTF_SEL_GBIC;", "+#define BCM54XX_SHD_INTF_SEL_GBIC\t0x06" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\bdma_(?:buf|fence|resv)\\b",
	  { " struct dma_buf;", "+ * struct dma_buf_ops - operations possible on struct dma_buf", "+\tunsigned char kbdmode:3;\t/* one 3-bit value */", "-#define TC3589x_DKBDMSK_ELINT\t(1 << 1)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\bdma_(?:buf|fence|resv)\\b",
	  { "+ * struct dma_buf_ops - operations possible on struct dma_buf", "-\t * &dma_buf_attachment.dev can access the provided &dma_buf. Exporters", "+\tunsigned char kbdmode:3;\t/* one 3-bit value */", "-#define TC3589x_DKBDMSK_ELINT\t(1 << 1)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "asm/elf.h",
	  { "arch/alpha/include/asm/elf.h", "arch/arc/include/asm/elf.h", "Documentation/core-api/asm-annotations.rst", "Documentation/devicetree/bindings/rtc/alphascale,asm9260-rtc.txt" },
	  { 1, 1, 0, 0 }, 4 },
	{ "binfmt",
	  { "Documentation/admin-guide/binfmt-misc.rst", "fs/Kconfig.binfmt", "Documentation/PCI/endpoint/function/binding/", "Documentation/PCI/endpoint/function/binding/pci-ntb.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b__NO_FORTIFY\\b",
	  { "+#if !defined(__NO_FORTIFY) && defined(__OPTIMIZE__) && defined(CONFIG_FORTIFY_SOURCE)", "+__efistub__start\t\t= _start;", "-__efistub__start_kernel\t\t= _start_kernel;" },
	  { 1, 0, 0 }, 3 },
	{ "^[+-].*\\b__NO_FORTIFY\\b",
	  { "+#if !defined(__NO_FORTIFY) && defined(__OPTIMIZE__) && defined(CONFIG_FORTIFY_SOURCE)", "+__efistub__start\t\t= _start;", "-__efistub__start_kernel\t\t= _start_kernel;" },
	  { 1, 0, 0 }, 3 },
	{ "(devm_)?hwmon_device_(un)?register(|_with_groups|_with_info)",
	  { "+\tdata->hwmon_dev = hwmon_device_register(&pdev->dev);", "-\thwmon_device_unregister(data->hwmon_dev);", "-#include <linux/of_device.h>", " \t\t\t   struct device_node *node, unsigned int level)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*(devm_)?hwmon_device_(un)?register(|_with_groups|_with_info)",
	  { "+\tdata->hwmon_dev = hwmon_device_register(&pdev->dev);", "-\thwmon_device_unregister(data->hwmon_dev);", "-#include <linux/of_device.h>", " \t\t\t   struct device_node *node, unsigned int level)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b(ABS|SYN)_MT_",
	  { "+#define ABS_MT_FIRST\t\tABS_MT_TOUCH_MAJOR", "-#define ABS_MT_LAST\t\tABS_MT_TOOL_Y", "-\t  If you're not building a kernel for a BMC, this is probably", " \t  (probably the NSA325 and some NSA310 variants)." },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b(ABS|SYN)_MT_",
	  { "+#define ABS_MT_FIRST\t\tABS_MT_TOUCH_MAJOR", "-#define ABS_MT_LAST\t\tABS_MT_TOOL_Y", "-\t  If you're not building a kernel for a BMC, this is probably", " \t  (probably the NSA325 and some NSA310 variants)." },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\bSGX_",
	  { "+#define SGX_ENCL_PAGE 1", "-\tret = SGX_EPC;", "  *  BSG helper library", " #ifndef _BLK_BSG_" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\bSGX_",
	  { "+#define SGX_ENCL_PAGE 1", "-\tret = SGX_EPC;", "  *  BSG helper library", " #ifndef _BLK_BSG_" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b(add|choose)_random_kstack_offset\\b",
	  { "  * add_random_kstack_offset - Increase stack utilization by previously", "+#define add_random_kstack_offset() do {\t\t\t\t\t\\", "-\tOFFSET(PT_BADADDR, pt_regs, badaddr);", "-\t\tgoto badframe;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b(add|choose)_random_kstack_offset\\b",
	  { "+#define add_random_kstack_offset() do {\t\t\t\t\t\\", "+ *\t\t\t\t add_random_kstack_offset()", "-\tOFFSET(PT_BADADDR, pt_regs, badaddr);", "-\t\tgoto badframe;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b__check_(object_size|heap_object)\\b",
	  { " extern void __check_object_size(const void *ptr, unsigned long n,", "+\t\t__check_object_size(ptr, n, to_user);", "+__efistub__start\t\t= _start;", "-__efistub__start_kernel\t\t= _start_kernel;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b__check_(object_size|heap_object)\\b",
	  { "+\t\t__check_object_size(ptr, n, to_user);", "+__efistub__start\t\t= _start;", "-__efistub__start_kernel\t\t= _start_kernel;" },
	  { 1, 0, 0 }, 3 },
	{ "landlock",
	  { "-struct landlock_ruleset_attr;", " enum landlock_rule_type;", "  * Here we can supply some information useful to userland.", "+\t  12h (Llano), 14h (Brazos), 15h (Bulldozer/Trinity/Kaveri/Carrizo)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*landlock",
	  { "-struct landlock_ruleset_attr;", "-asmlinkage long sys_landlock_add_rule(int ruleset_fd, enum landlock_rule_type rule_type,", "  * Here we can supply some information useful to userland.", "+\t  12h (Llano), 14h (Brazos), 15h (Bulldozer/Trinity/Kaveri/Carrizo)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "LANDLOCK",
	  { "-config SECURITY_LANDLOCK", " obj-$(CONFIG_SECURITY_LANDLOCK) := landlock.o", "  * Here we can supply some information useful to userland.", "+\t  12h (Llano), 14h (Brazos), 15h (Bulldozer/Trinity/Kaveri/Carrizo)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*LANDLOCK",
	  { "-config SECURITY_LANDLOCK", "+#define _SECURITY_LANDLOCK_COMMON_H", "  * Here we can supply some information useful to userland.", "+\t  12h (Llano), 14h (Brazos), 15h (Bulldozer/Trinity/Kaveri/Carrizo)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "/pmac",
	  { "arch/powerpc/configs/pmac32_defconfig", "arch/powerpc/include/asm/pmac_feature.h", "Documentation/devicetree/bindings/net/fsl,qoriq-mc-dpmac.yaml", "arch/arm/boot/dts/qcom-pma8084.dtsi" },
	  { 1, 1, 0, 0 }, 4 },
	{ "powermac",
	  { "arch/powerpc/platforms/powermac/", "arch/powerpc/platforms/powermac/Kconfig", "Documentation/ABI/testing/sysfs-class-power", "Documentation/ABI/testing/sysfs-class-power-ltc4162l" },
	  { 1, 1, 0, 0 }, 4 },
	{ "powernv",
	  { "Documentation/devicetree/bindings/hwmon/ibmpowernv.txt", "Documentation/devicetree/bindings/leds/leds-powernv.txt", "Documentation/ABI/testing/sysfs-class-power", "Documentation/ABI/testing/sysfs-class-power-ltc4162l" },
	  { 1, 1, 0, 0 }, 4 },
	{ "[^a-z0-9]ps3",
	  { "arch/powerpc/boot/dts/ps3.dts", "arch/powerpc/boot/ps3-head.S", "arch/arm/boot/dts/tegra20-paz00.dts", "arch/arm/mach-tegra/board-paz00.c" },
	  { 1, 1, 0, 0 }, 4 },
	{ "pseries",
	  { "arch/powerpc/boot/pseries-head.S", "arch/powerpc/configs/pseries_defconfig", "Documentation/devicetree/bindings/net/pse-pd/", "Documentation/devicetree/bindings/net/pse-pd/podl-pse-regulator.yaml" },
	  { 1, 1, 0, 0 }, 4 },
	{ "litex",
	  { "Documentation/devicetree/bindings/mmc/litex,mmc.yaml", "Documentation/devicetree/bindings/net/litex,liteeth.yaml", "Documentation/admin-guide/namespaces/compatibility-list.rst", "Documentation/block/capability.rst" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\"nxp,tda998x\"",
	  { "+\t.compatible = \"nxp,tda998x\",", "-\t\tcompatible = \"nxp,tda998x\";", " \t\t- NXP's LM75A", " #define JC42_REG_SMBUS\t\t0x22 /* NXP and Atmel, possibly others? */" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\"nxp,tda998x\"",
	  { "+\t.compatible = \"nxp,tda998x\",", "-\t\tcompatible = \"nxp,tda998x\";", " \t\t- NXP's LM75A", " #define JC42_REG_SMBUS\t\t0x22 /* NXP and Atmel, possibly others? */" },
	  { 1, 1, 0, 0 }, 4 },
	{ "of_overlay_notifier_",
	  { " int of_overlay_notifier_register(struct notifier_block *nb);", "+int of_overlay_notifier_unregister(struct notifier_block *nb);", "-#include <linux/of_device.h>", "-\treturn this_leaf ? (this_leaf->ways_of_associativity << 16 |" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*of_overlay_notifier_",
	  { "+int of_overlay_notifier_unregister(struct notifier_block *nb);", "-static inline int of_overlay_notifier_unregister(struct notifier_block *nb)", "-#include <linux/of_device.h>", "-\treturn this_leaf ? (this_leaf->ways_of_associativity << 16 |" },
	  { 1, 1, 0, 0 }, 4 },
	{ "of_overlay_fdt_apply",
	  { "+int of_overlay_fdt_apply(const void *overlay_fdt, u32 overlay_fdt_size,", "-static inline int of_overlay_fdt_apply(void *overlay_fdt, u32 overlay_fdt_size,", "-#include <linux/of_device.h>", "-\treturn this_leaf ? (this_leaf->ways_of_associativity << 16 |" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*of_overlay_fdt_apply",
	  { "+int of_overlay_fdt_apply(const void *overlay_fdt, u32 overlay_fdt_size,", "-static inline int of_overlay_fdt_apply(void *overlay_fdt, u32 overlay_fdt_size,", "-#include <linux/of_device.h>", "-\treturn this_leaf ? (this_leaf->ways_of_associativity << 16 |" },
	  { 1, 1, 0, 0 }, 4 },
	{ "of_overlay_remove",
	  { " int of_overlay_remove(int *ovcs_id);", "+int of_overlay_remove_all(void);", "-#include <linux/of_device.h>", "-\treturn this_leaf ? (this_leaf->ways_of_associativity << 16 |" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*of_overlay_remove",
	  { "+int of_overlay_remove_all(void);", "-static inline int of_overlay_remove(int *ovcs_id)", "-#include <linux/of_device.h>", "-\treturn this_leaf ? (this_leaf->ways_of_associativity << 16 |" },
	  { 1, 1, 0, 0 }, 4 },
	{ "(?i)pidfd",
	  { "+#define FANOTIFY_INFO_MODES\t(FANOTIFY_FID_BITS | FAN_REPORT_PIDFD)", "-\t\t\t\t\t FAN_REPORT_PIDFD | \\", " \tshow_ipi_stats(p, prec);", "-static int (*__sbi_send_ipi)(const struct cpumask *cpu_mask) __ro_after_init;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*(?i)pidfd",
	  { "+#define FANOTIFY_INFO_MODES\t(FANOTIFY_FID_BITS | FAN_REPORT_PIDFD)", "-\t\t\t\t\t FAN_REPORT_PIDFD | \\", " \tshow_ipi_stats(p, prec);", "-static int (*__sbi_send_ipi)(const struct cpumask *cpu_mask) __ro_after_init;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "(?i)clone3",
	  { "+asmlinkage long sys_clone3(struct clone_args __user *uargs, size_t size);", " \t * mutually exclusive. With clone3() CLONE_PIDFD has grown a separate", "-#define NPCM7XX_FAN_REG_TICLR(base, n)    (NPCM7XX_FAN_REG_BASE(base, n) + 0x10)", "-#define NPCM7XX_FAN_TICLR_CLEAR_ALL\tGENMASK(5, 0)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*(?i)clone3",
	  { "+asmlinkage long sys_clone3(struct clone_args __user *uargs, size_t size);", "+static inline bool clone3_stack_valid(struct kernel_clone_args *kargs)", "-#define NPCM7XX_FAN_REG_TICLR(base, n)    (NPCM7XX_FAN_REG_BASE(base, n) + 0x10)", "-#define NPCM7XX_FAN_TICLR_CLEAR_ALL\tGENMASK(5, 0)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b(clone_args|kernel_clone_args)\\b",
	  { " int copy_thread(struct task_struct *p, const struct kernel_clone_args *args)", "-struct kernel_clone_args;", " static unsigned short force_subclients[4];", "+module_param_array(force_subclients, short, NULL, 0);" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b(clone_args|kernel_clone_args)\\b",
	  { "-struct kernel_clone_args;", "+\t\t\t   struct kernel_clone_args *kargs);", " static unsigned short force_subclients[4];", "+module_param_array(force_subclients, short, NULL, 0);" },
	  { 1, 1, 0, 0 }, 4 },
	{ "printk_index",
	  { " #define dev_printk_index_emit(level, fmt, ...) \\", "+\tprintk_index_subsys_emit(\"%s %s: \", level, fmt)", "-cache_get_priv_group(struct cacheinfo *this_leaf)", "+\tif (rv_cache_ops && rv_cache_ops->get_priv_group)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*printk_index",
	  { "+\tprintk_index_subsys_emit(\"%s %s: \", level, fmt)", "-\t\tdev_printk_index_emit(level, fmt);\t\t\t\\", "-cache_get_priv_group(struct cacheinfo *this_leaf)", "+\tif (rv_cache_ops && rv_cache_ops->get_priv_group)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b(pstore|ramoops)",
	  { "+#include <linux/pstore.h>", "-\tuint32_t pstore_size;", "-\t\t<Speed in megabits>Mbps OR <Speed in gigabits>Gbps OR link", "+\t * multigig switches read this bit and attempt to negotiate 10Gbps" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b(pstore|ramoops)",
	  { "+#include <linux/pstore.h>", "-\tuint32_t pstore_size;", "-\t\t<Speed in megabits>Mbps OR <Speed in gigabits>Gbps OR link", "+\t * multigig switches read this bit and attempt to negotiate 10Gbps" },
	  { 1, 1, 0, 0 }, 4 },
	{ "(?:\\b|_)ptp(?:\\b|_)",
	  { "+obj-$(CONFIG_BCM_NET_PHYPTP)\t+= bcm-phy-ptp.o", "+struct bcm_ptp_private *bcm_ptp_probe(struct phy_device *phydev);", "-asmlinkage void __init setup_vm(uintptr_t dtb_pa);", "+\twhile (inb_p(data->addr + ABIT_UGURU_DATA) != state) {" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*(?:\\b|_)ptp(?:\\b|_)",
	  { "+obj-$(CONFIG_BCM_NET_PHYPTP)\t+= bcm-phy-ptp.o", "+struct bcm_ptp_private *bcm_ptp_probe(struct phy_device *phydev);", "-asmlinkage void __init setup_vm(uintptr_t dtb_pa);", "+\twhile (inb_p(data->addr + ABIT_UGURU_DATA) != state) {" },
	  { 1, 1, 0, 0 }, 4 },
	{ "pwm_(config|apply_state|ops)",
	  { " \tu8  pwm_config[3];", "+\t\t\t/* pwm_config and pwm_min exist only for pwm[1-3] */", "+\ttristate \"ASPEED AST2400/AST2500 PWM and Fan tach driver\"", " \t  This driver provides support for ASPEED AST2400/AST2500 PWM" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*pwm_(config|apply_state|ops)",
	  { "+\t\t\t/* pwm_config and pwm_min exist only for pwm[1-3] */", "-\t\tif (PWM_EN_FROM_REG(data->pwm_config[ix]) == 2)", "+\ttristate \"ASPEED AST2400/AST2500 PWM and Fan tach driver\"", " \t  This driver provides support for ASPEED AST2400/AST2500 PWM" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b(?:devm_|of_)?reset_control(?:ler_[a-z]+|_[a-z_]+)?\\b",
	  { "-\tstruct reset_control *rst;", "-\treset_control_assert(priv->rst);", " #define SVSB_DESCHAR_FLD_BDES\t\tGENMASK(15, 8)", " #define SVSB_DETCHAR_FLD_DCBDET\t\tGENMASK(15, 8)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b(?:devm_|of_)?reset_control(?:ler_[a-z]+|_[a-z_]+)?\\b",
	  { "-\tstruct reset_control *rst;", "-\treset_control_assert(priv->rst);", " #define SVSB_DESCHAR_FLD_BDES\t\tGENMASK(15, 8)", " #define SVSB_DETCHAR_FLD_DCBDET\t\tGENMASK(15, 8)" },
	  { 1, 1, 0, 0 }, 4 },
	{ "riscv",
	  { "Documentation/devicetree/bindings/interrupt-controller/riscv,cpu-intc.txt", "Documentation/devicetree/bindings/riscv/", "Documentation/ABI/testing/debugfs-turris-mox-rwtm", "Documentation/ABI/testing/sysfs-bus-iio-chemical-sunrise-co2" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*riscv",
	  { "+obj-y\t+= sys_riscv.o", "+obj-y\t+= riscv_ksyms.o", " # Makefile for the RISC-V Linux kernel", "-ifdef CONFIG_RISCV_ALTERNATIVE_EARLY" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\b(?i:rust)\\b",
	  { "  * see https://github.com/rust-lang/rust-bindgen/issues/2244.", "-# for Rust only, thus there is no header nor prototypes.", "-\tstruct sbiret ret;", " \tstruct sbiret ret;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\b(?i:rust)\\b",
	  { "-# for Rust only, thus there is no header nor prototypes.", "+RUST_LIB_SRC ?= $(rustc_sysroot)/lib/rustlib/src/rust/library", "-\tstruct sbiret ret;", " \tstruct sbiret ret;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\bsecure_computing",
	  { "+\tif (secure_computing() == -1)", " static inline int secure_computing(void)", "  * Subsequent faults will map in data for the new namespace.", " \t\t * Ignore the valid bit. In all observed cases the register" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\bsecure_computing",
	  { "+\tif (secure_computing() == -1)", "+extern void secure_computing_strict(int this_syscall);", "  * Subsequent faults will map in data for the new namespace.", " \t\t * Ignore the valid bit. In all observed cases the register" },
	  { 1, 1, 0, 0 }, 4 },
	{ "\\bTIF_SECCOMP\\b",
	  { "+#define TIF_SECCOMP\t\t8", "-\tif (test_thread_flag(TIF_SECCOMP))", "+DEFINE_CEPH_FEATURE(59, 1, FS_BTIME)", "-\t\tstruct ceph_timespec btime;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*\\bTIF_SECCOMP\\b",
	  { "+#define TIF_SECCOMP\t\t8", "-\tif (test_thread_flag(TIF_SECCOMP))", "+DEFINE_CEPH_FEATURE(59, 1, FS_BTIME)", "-\t\tstruct ceph_timespec btime;" },
	  { 1, 1, 0, 0 }, 4 },
	{ "phylink\\.h|struct\\s+phylink|\\.phylink|>phylink_|phylink_(autoneg|clear|connect|create|destroy|disconnect|ethtool|helper|mac|mii|of|set|start|stop|test|validate)",
	  { "-#include <linux/phylink.h>", "-\tphylink_set(phy_support, 1000baseX_Full);", "-\tvaddr = memremap(__pfn_to_phys(pfn), PAGE_SIZE, MEMREMAP_WB);", "+\t\t\t\t   md->phys_addr + i * PAGE_SIZE," },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*phylink\\.h|struct\\s+phylink|\\.phylink|>phylink_|phylink_(autoneg|clear|connect|create|destroy|disconnect|ethtool|helper|mac|mii|of|set|start|stop|test|validate)",
	  { "-#include <linux/phylink.h>", "-\tphylink_set(phy_support, 1000baseX_Full);", "-\tvaddr = memremap(__pfn_to_phys(pfn), PAGE_SIZE, MEMREMAP_WB);", "+\t\t\t\t   md->phys_addr + i * PAGE_SIZE," },
	  { 1, 1, 0, 0 }, 4 },
	{ "sifive",
	  { "Documentation/devicetree/bindings/clock/sifive/", "Documentation/devicetree/bindings/clock/sifive/fu540-prci.yaml", "drivers/char/ipmi/ipmi_ssif.c", "drivers/gpu/drm/nouveau/nouveau_usif.c" },
	  { 1, 1, 0, 0 }, 4 },
	{ "[^@]sifive",
	  { "+\t\tcpu_mfr_info->patch_func = sifive_errata_patch_func;", "+\t  will be called pwm-sifive.", "  * Copyright (C) 2021 Sifive.", "-#ifdef CONFIG_ERRATA_SIFIVE" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*[^@]sifive",
	  { "+\t\tcpu_mfr_info->patch_func = sifive_errata_patch_func;", "+\t  will be called pwm-sifive.", "  * Copyright (C) 2021 Sifive.", "-#ifdef CONFIG_ERRATA_SIFIVE" },
	  { 1, 1, 0, 0 }, 4 },
	{ "fu540",
	  { "Documentation/devicetree/bindings/clock/sifive/fu540-prci.yaml", "Documentation/devicetree/bindings/dma/sifive,fu540-c000-pdma.yaml" },
	  { 1, 1 }, 2 },
	{ "^[+-].*fu540",
	  { "+\tcompatible = \"sifive,fu540-c000\";", "- * Reference Manual : https://static.dev.sifive.com/FU540-C000-v1.0.pdf", "-CONFIG_SOC_SIFIVE_FU540=y" },
	  { 1, 0, 0 }, 3 },
	{ "[^a-z]tegra",
	  { "Documentation/ABI/testing/sysfs-driver-tegra-fuse", "Documentation/devicetree/bindings/arm/nvidia,tegra194-ccplex.yaml", "drivers/media/radio/radio-aztech.c", "sound/isa/azt2320.c" },
	  { 1, 1, 0, 0 }, 4 },
	{ "regulator_get_optional",
	  { "+\tregulator = devm_regulator_get_optional(dev, \"vref\");", "+\tst->reg = devm_regulator_get_optional(&client->dev, \"vref\");", "-obj-$(CONFIG_HAVE_PERF_REGS)\t+= perf_regs.o", " obj-$(CONFIG_KEXEC_CORE)\t+= kexec_relocate.o crash_save_regs.o machine_kexec.o" },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*regulator_get_optional",
	  { "+\tregulator = devm_regulator_get_optional(dev, \"vref\");", "+\tst->reg = devm_regulator_get_optional(&client->dev, \"vref\");", "-obj-$(CONFIG_HAVE_PERF_REGS)\t+= perf_regs.o", " obj-$(CONFIG_KEXEC_CORE)\t+= kexec_relocate.o crash_save_regs.o machine_kexec.o" },
	  { 1, 1, 0, 0 }, 4 },
	{ "axp288",
	  { "drivers/extcon/extcon-axp288.c", "drivers/iio/adc/axp288_adc.c", "Documentation/ABI/testing/sysfs-driver-input-axp-pek", "Documentation/devicetree/bindings/gpio/x-powers,axp209-gpio.yaml" },
	  { 1, 1, 0, 0 }, 4 },
	{ "axp[128]",
	  { "Documentation/devicetree/bindings/gpio/x-powers,axp209-gpio.yaml", "Documentation/devicetree/bindings/iio/adc/x-powers,axp209-adc.yaml", "Documentation/ABI/testing/sysfs-driver-input-axp-pek", "arch/arm/boot/dts/armada-xp-axpwifiap.dts" },
	  { 1, 1, 0, 0 }, 4 },
	{ "(?:\\b|_)xdp(?:\\b|_)",
	  { "- * same prog type, JITed flag and xdp_has_frags flag.", "+\tbool xdp_has_frags;", "-#include <asm/gdb_xml.h>", "-\tif (!strncmp(remcom_in_buffer, gdb_xfer_read_target," },
	  { 1, 1, 0, 0 }, 4 },
	{ "^[+-].*(?:\\b|_)xdp(?:\\b|_)",
	  { "- * same prog type, JITed flag and xdp_has_frags flag.", "+\tbool xdp_has_frags;", "-#include <asm/gdb_xml.h>", "-\tif (!strncmp(remcom_in_buffer, gdb_xfer_read_target," },
	  { 1, 1, 0, 0 }, 4 },
	{ "zstd",
	  { "crypto/zstd.c", "fs/btrfs/zstd.c" },
	  { 1, 1 }, 2 },
	{ "^[+-].*zstd",
	  { "+ * LICENSE file in the root directory of https://github.com/facebook/zstd) and", "- * This is a kernel-style API that wraps the upstream zstd API, which cannot be", " #ifndef LINUX_DECOMPRESS_UNZSTD_H", "+#define LINUX_DECOMPRESS_UNZSTD_H" },
	  { 1, 1, 0, 0 }, 4 },
};

static const struct row constructs[] = {
	{ "a(?i)b|c",
	  { "c.", "}C?@x", "ZZC", ")", "(|Wx)A|", "a?_9x\\" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "(?i:a)b",
	  { "ab", "ab\tB", "Bx(babX", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "x(?i)(y|z)W",
	  { "^+ #xYw", "#\\ xZw#}", "xzW#\t", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[]a]",
	  { "a?_9x\\", "a|W*A#9?", "@w]-)@", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[^]a]",
	  { "c.", ")", "(|Wx)A|", "a", "]", "]" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[a-]b",
	  { "ab", "ab\tB", "Bx(babX", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[-a]b",
	  { "ab", "ab\tB", "Bx(babX", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[\\]\\\\]",
	  { "a?_9x\\", "@w]-)@", ")A(b]", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[\\w.]+@",
	  { "zz@9aw", "}w@^){^", "x.@W", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[[:alpha:]]{2}",
	  { "(|Wx)A|", "xZ-X[@", "zz@9aw", "c.", ")", "a?_9x\\" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[[:^digit:]]9",
	  { "a?_9x\\", "a|W*A#9?", "9{99+-A", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "(?i)[^a-c]x",
	  { "(|Wx)A|", "a?_9x\\", "xZ-X[@", "c.", ")", "a|W*A#9?" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "\\.\\*\\?\\+\\(\\)\\[\\{\\}\\|\\$\\^",
	  { "c.", ")", "(|Wx)A|" },
	  { 0, 0, 0 }, 3 },
	{ "a{2,3}b",
	  { "aab_?", "aab}y)]Y", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 0, 0, 0 }, 5 },
	{ "a{,2}b",
	  { "b( $^Z", ")A(b]", ".bcCA?a_", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "a{2,}?b",
	  { "aab_?", "aab}y)]Y", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 0, 0, 0 }, 5 },
	{ "a+?b",
	  { "ab", "ab\tB", "Bx(babX", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "a b # comment",
	  { "ab", "ab\tB", "Bx(babX", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "a\\ b",
	  { "a b?cC|C", "c.", ")", "(|Wx)A|" },
	  { 1, 0, 0, 0 }, 4 },
	{ "a[ ]b",
	  { "a b?cC|C", "c.", ")", "(|Wx)A|" },
	  { 1, 0, 0, 0 }, 4 },
	{ "(?#note)ab",
	  { "ab", "ab\tB", "Bx(babX", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "^a|b$",
	  { "a?_9x\\", "a|W*A#9?", "a\t\t[+", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "(|x)y",
	  { "@y#W*B", "\\*B]yW", "-Azw\\y", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "\\d\\D\\s\\S\\w\\W",
	  { ".9Y zC.", "9z\t)z{", "9# -c}(", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "\\x41\\x2e",
	  { "A.", "A.*+", "#B[zWA.^", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "\\ta",
	  { "C\t?[@\ta", "9(Z\ta9yc", "\ta)?", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[\\d-z]",
	  { "a?_9x\\", "a|W*A#9?", "9{99+-A", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "(?-i:a)",
	  { "a?_9x\\", "a|W*A#9?", "zz@9aw", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "(?i)a(?-i)b",
	  { "ab", "ab\tB", "Bx(babX", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "((a|b)c)+d",
	  { "c.", ")", "(|Wx)A|" },
	  { 0, 0, 0 }, 3 },
	{ "ab|",
	  { "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1 }, 3 },
	{ "a]b}c",
	  { "c.", ")", "(|Wx)A|" },
	  { 0, 0, 0 }, 3 },
	{ "\\Bb\\B",
	  { "{\t)\t cbC", ")xZbB", "yb_X*CwA", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[a-c[:digit:]]x",
	  { "a?_9x\\", "cx9$", "ax[[}b}c", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "(?i)[[:lower:]]z",
	  { "xZ-X[@", "zz@9aw", "ZZC", "c.", ")", "(|Wx)A|" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
	{ "[.*?]",
	  { "c.", "a?_9x\\", "a|W*A#9?", ")", "(|Wx)A|", "9{99+-A" },
	  { 1, 1, 1, 0, 0, 0 }, 6 },
};

static void check_rows(const struct row *rows, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		struct perlre *re = NULL;
		struct buf err = BUF_INIT;

		if (perlre_new(rows[i].pattern, strlen(rows[i].pattern), PERLRE_EXTENDED, &re, &err) < 0)
			fail_msg("%s: %s", rows[i].pattern, err.data);
		for (k = 0; k < rows[i].n; k++) {
			int got = perlre_match(re, rows[i].subject[k], strlen(rows[i].subject[k]), &err);

			if (got != rows[i].match[k])
				fail_msg("%s on '%s': %d, Perl says %d", rows[i].pattern,
					 rows[i].subject[k], got, rows[i].match[k]);
			/* a match holds one of the required literals */
			if (got == 1 && perlre_nr_literals(re)) {
				char lower[256];
				size_t j, l;
				int found = 0;

				for (l = 0; rows[i].subject[k][l] && l < sizeof(lower) - 1; l++)
					lower[l] = (char)(rows[i].subject[k][l] >= 'A' && rows[i].subject[k][l] <= 'Z' ?
							  rows[i].subject[k][l] + 32 : rows[i].subject[k][l]);
				lower[l] = '\0';
				for (j = 0; j < perlre_nr_literals(re); j++)
					found |= strstr(lower, perlre_literal(re, j)) != NULL;
				if (!found)
					fail_msg("%s on '%s': matched without a required literal",
						 rows[i].pattern, rows[i].subject[k]);
			}
		}
		perlre_free(re);
		buf_release(&err);
	}
}

static const struct row beyond_posix[] = {
	{ "foo(?!bar)",
	  { "foobaz", "foobar", "xfoo" },
	  { 1, 0, 1 }, 3 },
	{ "(?<=drm_)crtc",
	  { "drm_crtc_init", "intel_crtc", "crtc" },
	  { 1, 0, 0 }, 3 },
	{ "(?<!devm_)kzalloc\\b",
	  { "p = kzalloc(n)", "devm_kzalloc(dev)", "kzalloc_node(x)" },
	  { 1, 0, 0 }, 3 },
	{ "(?i)clone3",
	  { "CLONE3", "Clone3_args", "clone" },
	  { 1, 1, 0 }, 3 },
	{ "(\\w)\\1",
	  { "xx", "abc", "a_b" },
	  { 1, 0, 0 }, 3 },
	{ "(?<q>[\"\\x27])abc\\k<q>",
	  { "\"abc\"", "'abc'", "\"abc'" },
	  { 1, 1, 0 }, 3 },
	{ "\\Afoo",
	  { "foobar", "xfoo", "foo" },
	  { 1, 0, 1 }, 3 },
	{ "a++b",
	  { "aaab", "b", "aa" },
	  { 1, 0, 0 }, 3 },
	{ "(?s)a.b",
	  { "a\nb", "axb", "ab" },
	  { 1, 1, 0 }, 3 },
	{ "(?|(a)|(b))\\1",
	  { "aa", "bb", "ab" },
	  { 1, 1, 0 }, 3 },
	{ "(?>a+)b",
	  { "aab", "b", "aa" },
	  { 1, 0, 0 }, 3 },
	{ "^(?:(?!foo).)*$",
	  { "barbaz", "xfoox", "" },
	  { 1, 0, 1 }, 3 },
	{ "\\x41\\101\\cA",
	  { "AA\x01""", "AA", "aa\x01""" },
	  { 1, 0, 0 }, 3 },
	{ "\\p{Lu}x",
	  { "Ax", "ax", "x" },
	  { 1, 0, 0 }, 3 },
	{ "(*FAIL)|b",
	  { "b", "a", "" },
	  { 1, 0, 0 }, 3 },
	{ "foo$",
	  { "foo\n", "foo", "foo\nx" },
	  { 1, 1, 0 }, 3 },
	{ "foo\\z",
	  { "foo\n", "foo", "foox" },
	  { 0, 1, 0 }, 3 },
	{ "foo\\s",
	  { "+foo\n", "foo ", "foo" },
	  { 1, 1, 0 }, 3 },
	{ "[^a]$",
	  { "b\n", "a\n", "" },
	  { 1, 1, 0 }, 3 },
	{ "caf\\xe9",
	  { "caf\xe9""", "CAF\xc9""", "cafe" },
	  { 1, 0, 0 }, 3 },
	{ "(?i)caf\\xe9",
	  { "CAF\xe9""", "CAF\xc9""", "cafe" },
	  { 1, 0, 0 }, 3 },
	{ "\\w",
	  { "\xe9""", "a", " " },
	  { 0, 1, 0 }, 3 },
	{ "\\Qa.b\\E",
	  { "Qa.bE", "a.b", "Qaxb" },
	  { 1, 0, 0 }, 3 },
	{ "[\\Q]x",
	  { "Qx", "]x", "x" },
	  { 1, 0, 0 }, 3 },
	{ "x{,3}y",
	  { "xxy", "x{,3}y", "z" },
	  { 1, 1, 0 }, 3 },
	{ "a{ 2 , }b",
	  { "aab", "ab", "a{ 2 , }b" },
	  { 1, 0, 0 }, 3 },
	{ "\\x{ 41 }",
	  { "A", "x", "{" },
	  { 1, 0, 0 }, 3 },
	{ "a\\yb",
	  { "ayb", "ab", "a\\yb" },
	  { 1, 0, 0 }, 3 },
	{ "(?x: a b )c",
	  { "abc", "a bc", "ab" },
	  { 1, 0, 0 }, 3 },
	{ "(?-x:a b)",
	  { "a b", "ab", "xa by" },
	  { 1, 0, 1 }, 3 },
};

static void real_maintainers_patterns_match_as_perl(void **state)
{
	(void)state;
	check_rows(real_patterns, sizeof(real_patterns) / sizeof(real_patterns[0]));
}

static void constructs_match_as_perl(void **state)
{
	(void)state;
	check_rows(constructs, sizeof(constructs) / sizeof(constructs[0]));
}

static void beyond_posix_matches_as_perl(void **state)
{
	(void)state;
	check_rows(beyond_posix, sizeof(beyond_posix) / sizeof(beyond_posix[0]));
}

/* An escaped metacharacter is itself, in a class too. */
static void metacharacters_stay_literal(void **state)
{
	static const char *const chars[] = {
		"\\.", "\\[", "\\]", "\\(", "\\)", "\\*", "\\+", "\\?", "\\{", "\\}", "\\|", "\\^", "\\$", "\\\\", "\\-",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(chars) / sizeof(chars[0]); i++) {
		struct perlre *re;
		struct buf err = BUF_INIT;
		char subject[4] = { 'x', chars[i][1], 'y', 0 };

		assert_int_equal(perlre_new(chars[i], 2, 0, &re, &err), 0);
		assert_int_equal(perlre_match(re, subject, 3, &err), 1);
		assert_int_equal(perlre_match(re, "xay", 3, &err), 0);
		perlre_free(re);
		/* and inside a class */
		{
			char cls[8] = { '[', 'a', '\\', chars[i][1], ']', 0 };

			assert_int_equal(perlre_new(cls, strlen(cls), 0, &re, &err), 0);
			assert_int_equal(perlre_match(re, subject, 3, &err), 1);
			assert_int_equal(perlre_match(re, "xby", 3, &err), 0);
			perlre_free(re);
		}
		buf_release(&err);
	}
}

/* Without PERLRE_EXTENDED (F: patterns, `m@^$pattern@`), blanks and '#'
 * are themselves. */
static void extended_mode_is_optional(void **state)
{
	struct perlre *re;
	struct buf err = BUF_INIT;

	(void)state;
	assert_int_equal(perlre_new("a b#c", 5, 0, &re, &err), 0);
	assert_int_equal(perlre_match(re, "xa b#cx", 7, &err), 1);
	assert_int_equal(perlre_match(re, "ab", 2, &err), 0);
	perlre_free(re);
	assert_int_equal(perlre_new("a b#c", 5, PERLRE_EXTENDED, &re, &err), 0);
	assert_int_equal(perlre_match(re, "xa b#cx", 7, &err), 0);
	assert_int_equal(perlre_match(re, "ab", 2, &err), 1);
	perlre_free(re);
	buf_release(&err);
}

/* What Perl 5.36 refuses (`qr/$p/x` dies) is refused, with PCRE2's
 * reason and the offset; so are PCRE2's own start-of-pattern options. */
static void what_perl_refuses_is_refused(void **state)
{
	static const struct {
		const char *pattern;
		const char *msg;
	} cases[] = {
		{ "a**", "quantifier does not follow a repeatable item at offset 2" },
		{ "*a", "quantifier does not follow a repeatable item at offset 0" },
		{ "(ab", "missing closing parenthesis at offset 3" },
		{ "ab)", "unmatched closing parenthesis at offset 2" },
		{ "[ab", "missing terminating ] for character class at offset 3" },
		{ "[z-a]", "range out of order in character class at offset 3" },
		{ "(?<=a+)x", "lookbehind assertion is not fixed length at offset 0" },
		{ "a\\", "\\ at end of pattern at offset 2" },
		{ "(?{ 1 })", "unrecognized character after (? or (?- at offset 2" },
		{ "(*UTF)x", "a PCRE2 option, not Perl, at offset 0" },
		{ "(*LIMIT_MATCH=1)x", "a PCRE2 option, not Perl, at offset 0" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perlre *re = (struct perlre *)1;
		struct buf err = BUF_INIT;

		if (perlre_new(cases[i].pattern, strlen(cases[i].pattern), PERLRE_EXTENDED, &re, &err) != -1)
			fail_msg("%s: accepted", cases[i].pattern);
		assert_null(re);
		if (strcmp(err.data, cases[i].msg))
			fail_msg("%s: '%s', want '%s'", cases[i].pattern, err.data, cases[i].msg);
		buf_release(&err);
	}
}

/* A pattern that backtracks without end gives up at the match limit: an
 * error, not a hung run; the same pattern on a short subject answers. */
static void runaway_backtracking_gives_up(void **state)
{
	char subject[4097];
	struct perlre *re;
	struct buf err = BUF_INIT;

	(void)state;
	memset(subject, 'a', sizeof(subject) - 2);
	subject[sizeof(subject) - 2] = 'b';
	subject[sizeof(subject) - 1] = '\0';
	assert_int_equal(perlre_new("(a+)+$", 6, PERLRE_EXTENDED, &re, &err), 0);
	assert_int_equal(perlre_match(re, "aaab", 4, &err), 0);
	assert_int_equal(perlre_match(re, "aaa", 3, &err), 1);
	assert_int_equal(perlre_match(re, subject, strlen(subject), &err), -1);
	assert_string_equal(err.data, "gave up matching: match limit exceeded");
	perlre_free(re);
	buf_release(&err);
}

/* PERLRE_CHECKED (a pattern from an image) compiles on first use; were
 * it not valid after all, matching says so. */
static void checked_patterns_compile_on_first_use(void **state)
{
	struct perlre *re;
	struct buf err = BUF_INIT;

	(void)state;
	assert_int_equal(perlre_new("\\bfoo(?!bar)", 12, PERLRE_EXTENDED | PERLRE_CHECKED, &re, &err), 0);
	assert_int_equal(perlre_nr_literals(re), 1);
	assert_string_equal(perlre_literal(re, 0), "foo");
	assert_int_equal(perlre_match(re, "a foobaz", 8, &err), 1);
	assert_int_equal(perlre_match(re, "a foobar", 8, &err), 0);
	perlre_free(re);
	assert_int_equal(perlre_new("(ab", 3, PERLRE_EXTENDED | PERLRE_CHECKED, &re, &err), 0);
	assert_int_equal(perlre_match(re, "ab", 2, &err), -1);
	assert_string_equal(err.data, "missing closing parenthesis at offset 3");
	perlre_free(re);
	buf_release(&err);
}

/* The required literals: a set one string of which every match holds
 * (the tables check that on every match), or none when the text is not
 * plain enough to tell. */
static void required_literals(void **state)
{
	static const struct {
		const char *pattern;
		const char *literals;	/* '|' between them; "" for none */
	} cases[] = {
		{ "mediatek", "mediatek" },
		{ "^[+-].*\\b(?i:clang|llvm)\\b", "clang|llvm" },
		{ "(devm_)?hwmon_device_(un)?register(|_with_groups|_with_info)", "hwmon_device_" },
		{ "phylink\\.h|struct\\s+phylink|\\.phylink", "phylink.h|phylink|.phylink" },
		{ "\\bdma_(?:buf|fence|resv)\\b", "dma_" },
		{ "a b c # comment", "abc" },
		{ "ab*c", "a" },
		{ "xy{2,3}z", "x" },
		{ "(?i)PidFD", "pidfd" },
		{ "foo(?=bar)", "foo" },
		{ "\\Qa.b\\E", "qa" },
		{ "a|b*", "" },
		{ "(a)\\1", "" },
		{ "\\x41bc", "" },
		{ "(?-x)a b", "" },
		{ "(?R)?ab", "" },
		{ "(*FAIL)ab", "" },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perlre *re;
		struct buf err = BUF_INIT, got = BUF_INIT;

		if (perlre_new(cases[i].pattern, strlen(cases[i].pattern), PERLRE_EXTENDED, &re, &err) < 0)
			fail_msg("%s: %s", cases[i].pattern, err.data);
		for (k = 0; k < perlre_nr_literals(re); k++)
			buf_addf(&got, "%s%s", k ? "|" : "", perlre_literal(re, k));
		if (strcmp(got.data ? got.data : "", cases[i].literals))
			fail_msg("%s: '%s', want '%s'", cases[i].pattern, got.data ? got.data : "", cases[i].literals);
		perlre_free(re);
		buf_release(&got);
		buf_release(&err);
	}
}

static void limits_are_errors(void **state)
{
	static char big[PERLRE_MAX_PATTERN + 2];
	struct perlre *re;
	struct buf err = BUF_INIT;

	(void)state;
	memset(big, 'a', sizeof(big));
	assert_int_equal(perlre_new(big, PERLRE_MAX_PATTERN, 0, &re, &err), 0);
	perlre_free(re);
	assert_int_equal(perlre_new(big, PERLRE_MAX_PATTERN + 1, 0, &re, &err), -1);
	assert_string_equal(err.data, "pattern longer than 8192 bytes");
	assert_int_equal(perlre_new("a\0b", 3, 0, &re, &err), -1);
	assert_string_equal(err.data, "NUL byte in pattern");
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_maintainers_patterns_match_as_perl),
		cmocka_unit_test(constructs_match_as_perl),
		cmocka_unit_test(beyond_posix_matches_as_perl),
		cmocka_unit_test(metacharacters_stay_literal),
		cmocka_unit_test(extended_mode_is_optional),
		cmocka_unit_test(what_perl_refuses_is_refused),
		cmocka_unit_test(runaway_backtracking_gives_up),
		cmocka_unit_test(checked_patterns_compile_on_first_use),
		cmocka_unit_test(required_literals),
		cmocka_unit_test(limits_are_errors),
	};

	return cmocka_run_group_tests_name("perlre", tests, NULL, NULL);
}
